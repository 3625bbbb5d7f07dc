"""Saved LLDP neighbour tables -> Neighbor entries (pure: text in, model out).

Read, whichever the text is (the format is told from the content):
- Arista EOS `show lldp neighbors` (a table) and `show lldp neighbors detail`;
- Cisco NX-OS `show lldp neighbors` (a table) and `show lldp neighbors detail` (Nexus 9000 Interfaces
  Configuration Guide, "Configuring LLDP", verifying: `Device ID  Local Intf  Hold-time  Capability  Port ID`;
  `Chassis id:` / `Port id:` / `Local Port id:` / `System Name:` blocks), also per interface (NX-OS `show lldp
  neighbors interface ethernet 1/1 detail`, IOS `show lldp neighbors Gi1/0/1 detail`): IOS releases print no `Local
  Intf:` line, so the interface comes from the command, in the prompt line that ran it or the capture section's;
- SONiC `show lldp table` (sonic-utilities scripts/lldpshow: `LocalPort  RemoteDevice  RemotePortID  Capability
  RemotePortDescr` under a dash rule); SONiC `show lldp neighbors` is lldpd's text (below);
- Cumulus Linux NVUE `nv show interface lldp` (`Interface  Speed  Type  Remote Host  Remote Port`), NCLU `net show
  lldp`, and `nv show interface lldp-detail` (lldpd's text with a bare `Interface:` line);
- Junos `show lldp neighbors` (Junos CLI reference, "show lldp neighbors": `Local Interface  [Parent Interface]
  Chassis Id  Port info  System Name`; "Port info" is the neighbour's port ID or its port description);
- lldpd's `lldpcli show neighbors` / `lldpctl` as `-f keyvalue`, `-f json`, `-f json0`, or the
  default text.
lldpd sends the MAC address as its port ID unless told `configure lldp portidsubtype ifname`, and
the interface name as its port description (lldpd tests/integration/test_lldpcli.py): a MAC port
ID is replaced by the description, or left unknown. A row that cannot be read is a SYS002 issue
at its line; everything else is still read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from ..docpos import json_value
from ..lazyre import lazy
from ..model import Neighbor, ParseIssue
from ..units import is_digits
from .base import (
    CLI_PROMPT,
    PROMPT_ALONE,
    PROMPT_HOST,
    IssueList,
    LineAt,
    cli_json,
    line_source,
    long_interface_name,
    positional,
)
from .base import prompt_host as base_prompt_host

# neighbor(port, remote_device, remote_port, origin, source): a Neighbor without the keyword call (base.positional).
neighbor = positional(Neighbor, "port", "remote_device", "remote_port", "origin", "source")
_MAC = lazy(r"^(?:[0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^(?:[0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$")
# lldpd port ID subtypes (lldpd src/lib/atoms/port.c): ifname, ifalias, local name a port; mac, ip do not.
_NAMING_SUBTYPES = ("ifname", "ifalias", "local")
# `lldp.<interface>.<key>=<value>` (the interface as short as it can be): the first of these keys after
# "lldp." and at least one character of interface, searched for in C (a line-anchored expression with a lazy
# interface tried every key at every character of every line).
_KEYVALUE_KEY = lazy(r"\.(via|rid|chassis\.name|port\.(?:ifname|ifalias|local|mac|ip|unhandled|descr)"
                           r"|chassis\.(?:mac|ifname|local|ip|ifalias))=")
_EOS_TABLE_HEADER = lazy(r"^\s*Port\s+Neighbor Device ID\s+Neighbor Port ID\s+TTL\s*$")
_EOS_DETAIL_IFACE = lazy(r"^Interface (\S+) detected \d+ LLDP neighbors?:")
# lldpctl: `Interface:    eth0, via: LLDP, RID: 1, ...`; NVUE `nv show interface lldp-detail`: `Interface:    swp1`.
_LLDPCTL_IFACE = lazy(r"^Interface:\s+([^,\s]+)(?:,|\s*$)")
_NXOS_TABLE_HEADER = lazy(r"^\s*Device ID\s+Local Intf\s+Hold-time\s+Capability\s+Port ID\s*$")
_NXOS_DETAIL_KEY = lazy(r"^\s*(Chassis id|Port id|Local Port id|Local Intf|Port Description|System Name):"
                              r"\s?(.*)$")
# Tables under a dash rule: SONiC `show lldp table`, NVUE `nv show interface lldp` (NVUE command reference, "nv show
# interface lldp"), NCLU `net show lldp`; what each column is, by its header.
# NCLU has printed its columns in more than one order (`... RemoteHost  RemotePort`, `... RemotePort  RemoteHost
# Summary`, `Local Port ... ====  Remote Port  Remote  Host  Summary`).
_RULED_HEADER = lazy(r"^\s*(?:LocalPort\s+RemoteDevice\s+RemotePortID\s+Capability(\s+RemotePortDescr)?"
                           r"|Interface\s+Speed\s+Type\s+Remote Host\s+Remote Port"
                           r"|Local ?Port\s+Speed\s+Mode\s+(?:====\s+)?(?:(?:Remote ?Host|Remote\s+Host|Remote ?Port)"
                           r"\s*){2}(?:\s+Summary)?)\s*$")
_RULED_ROLES = {"LocalPort": "local", "Local Port": "local", "Interface": "local", "RemoteDevice": "device",
                "Remote Host": "device", "RemoteHost": "device", "RemotePortID": "port", "Remote Port": "port",
                "RemotePort": "port", "RemotePortDescr": "descr"}
_JUNOS_TABLE_HEADER = lazy(r"^\s*Local ?Interface\s+(?:Parent Interface\s+)?Chassis ?Id\s+Port ?info"
                                 r"\s+System ?Name\s*$")
# The command of a prompt line: `leaf3# show lldp neighbors ...`, `sw1#sh lldp nei ...`.
_PROMPT_COMMAND = lazy(rf"^{CLI_PROMPT.pattern}\s*(?P<command>(?:sh|sho|show)\s.*)$")
# A detail command for one interface (NX-OS `show lldp neighbors interface ethernet 1/1 detail`, IOS and EOS `show lldp
# neighbors Ethernet1/1 detail`): the interface's words.
_PER_INTERFACE = lazy(r"^\s*(?:sh|sho|show)\s+lldp\s+nei\w*\s+(?:int\w*\s+)?(?P<iface>\S+(?:\s+\d\S*)?)"
                            r"\s+det\w*\s*$", re.IGNORECASE)
# NX-OS capability codes (B bridge, R router, T telephone, C DOCSIS, W WLAN, P repeater, S station, O other).
_NXOS_CAPS = lazy(r"^[BRTCWPSO]+(?:,[BRTCWPSO]+)*$")
# What NX-OS prints for a TLV the neighbour did not send.
_NOT_SENT = {"", "null", "not advertised", "n/a"}
# A Junos logical unit (`ge-0/0/1.0`, `et-0/0/17:1.0`): the cable is the physical interface's.
_JUNOS_UNIT = lazy(r"^([a-z]{2,3}-\d+/\d+/\d+(?::\d+)?)\.\d+$")
# A port info that can be an interface name: no spaces, no `<description>`, not Junos's numeric default port ID.
_PORT_NAME = lazy(r"^[A-Za-z][\w./:-]*$")
_TRAILER = lazy(r"^\s*(?:Total entries displayed|\{(?:master|backup|primary|linecard)[^}]*\}\s*$)")
READ = ("EOS or NX-OS `show lldp neighbors [detail]`, SONiC `show lldp table`, Junos `show lldp neighbors`, "
        "Cumulus `nv show interface lldp`, `lldpcli show neighbors` as text, keyvalue or JSON")
# A shell or CLI prompt that ran the command: `spine1#show lldp neighbors`, `root@gpu01:~# lldpcli ...`.
_PROMPT = lazy(rf"^{PROMPT_HOST.pattern}\s*"
                     r"(?:sudo\s+)?(?:show lldp|lldpcli|lldpctl|nv show interface|net show lldp)", re.MULTILINE)


def prompt_host(text: str) -> str | None:
    """The host name in a prompt line that ran the LLDP command, when the saved output has one."""
    return base_prompt_host(_PROMPT.search(text[:4096]))


def command_port(command: str) -> list[str] | None:
    """The words naming the interface of a per-interface detail command (`show lldp neighbors interface ethernet 1/1
    detail` -> `ethernet`, `1/1`; `show lldp neighbors Gi1/0/1 detail` -> `Gi1/0/1`), as typed: the platform's
    reader spells them as its configs do (NX-OS takes `e1/1` for Ethernet1/1). None for any other command."""
    m = _PER_INTERFACE.match(command)
    if m is None:
        return None
    words = m.group("iface").split()
    # (`show lldp neighbors interface detail`: none named)
    if not any(c in "0123456789" for word in words for c in word):
        return None
    return words


def _typed_port(words: list[str] | None) -> str | None:
    """The port a per-interface command in a prompt line names, spelled as the configs do where the command was typed
    short (`eth1`, `ethernet 1/1` -> `Ethernet1`, `Ethernet1/1`); IOS's `Te1/0/49` stays as typed. (NX-OS captures
    spell theirs with their reader's spellings: parse/nxos.)"""
    if not words:
        return None
    # (NX-OS, IOS and EOS take the name typed in any case: `ETH1/1` is Ethernet1/1 as `eth1/1` is)
    name = "".join(words)
    return long_interface_name(name[:1].upper() + name[1:], ignore_case=True)


def parse(text: str, path: str, first_line: int = 1, unknown: str = "SYS002",
          port: str | None = None) -> tuple[list[Neighbor], list[ParseIssue]]:
    """Neighbours in one saved output; ``first_line`` is the file line of the text's first line. Text of no
    format read here is one issue of code ``unknown`` (SYS001 for a file given only for its LLDP table). ``port``:
    the interface the command that printed the text named (a capture section's per-interface detail command)."""
    reader = _Reader(text, path, first_line)
    reader.port = port
    if (json_text := cli_json(text)) is not None:
        reader.json(json_text)
        return reader.neighbors, reader.issues
    for detect, read in ((_is_keyvalue, reader.keyvalue), (_is_eos_table, reader.eos_table),
                         (_is_eos_detail, reader.eos_detail), (_is_nxos_detail, reader.nxos_detail),
                         (_header(_NXOS_TABLE_HEADER), reader.nxos_table),
                         (_header(_RULED_HEADER), reader.ruled_table),
                         (_header(_JUNOS_TABLE_HEADER), reader.junos_table), (_is_lldpctl, reader.lldpctl)):
        if detect(text):
            read()
            break
    else:
        if text.strip():
            reader.issues.append(ParseIssue(code=unknown, source=line_source(path, first_line), message=(
                f"{path + ': ' if path else ''}no LLDP neighbour table in this output; read are: {READ}")))
    return reader.neighbors, reader.issues


def _is_keyvalue(text: str) -> bool:
    """A `lldp.<interface>.<key>=<value>` line among the first 50: the first line looked at on its own first (a
    host's lldpcli output starts with one: its 50 lines were cut for nothing, 1.27 -> 0.54 us)."""
    end = text.find("\n")
    if _keyvalue((text if end < 0 else text[:end]).strip()):
        return True
    return any(_keyvalue(line.strip()) for line in text.split("\n", 50)[:50])


def _keyvalue(line: str) -> tuple[str, str, str] | None:
    """(interface, key, value) of a `lldp.<interface>.<key>=<value>` line (stripped); None for any other."""
    if not line.startswith("lldp."):
        return None
    m = _KEYVALUE_KEY.search(line, 6)
    return None if m is None else (line[5:m.start()], m.group(1), line[m.end():])


def _is_eos_table(text: str) -> bool:
    return any(_EOS_TABLE_HEADER.match(line) for line in text.split("\n")[:50])


def _is_eos_detail(text: str) -> bool:
    return any(_EOS_DETAIL_IFACE.match(line) for line in text.split("\n"))


def _header(pattern: re.Pattern) -> Callable[[str], bool]:
    return lambda text: any(pattern.match(line) for line in text.split("\n", 60)[:60])


_NXOS_DETAIL_LABEL = lazy(r"^\s*(?:Local Port id|Local Intf|Port id):", re.MULTILINE)


def _is_nxos_detail(text: str) -> bool:
    """`Chassis id:` blocks with a `Port id:` line (EOS writes `Chassis ID :`, lldpd `ChassisID:`); whether each
    says its local interface (`Local Port id:`, IOS `Local Intf:`) or the command named it is the reader's to say."""
    return "Chassis id:" in text and _NXOS_DETAIL_LABEL.search(text) is not None


def _sent(value: str | None) -> str | None:
    """A TLV's value, None for NX-OS's `null` / `not advertised`."""
    return None if value is None or value.strip().lower() in _NOT_SENT else value.strip()


def _junos_port(name: str) -> str:
    m = _JUNOS_UNIT.match(name)
    return m.group(1) if m else name


_LLDPCTL_LABEL = lazy(r"^\s*(?:ChassisID|SysName|PortID):", re.MULTILINE)


def _is_lldpctl(text: str) -> bool:
    """An `Interface:` line and lldpd's labels (CDP's detail has `Interface: X,  Port ID (outgoing port): Y` too)."""
    return any(_LLDPCTL_IFACE.match(line) for line in text.split("\n")) and _LLDPCTL_LABEL.search(text) is not None


def _remote_port(subtype: str | None, port_id: str | None, descr: str | None) -> str | None:
    """The far end's interface name: the port ID when it names a port, else lldpd's description (its ifname). A
    number is Junos's default port ID (the port's SNMP ifIndex, `531`) and names no port of a platform read here:
    the description stands in when it is a name."""
    if port_id and is_digits(port_id):
        return descr if descr and _PORT_NAME.match(descr) else None
    if port_id and (subtype in _NAMING_SUBTYPES or (subtype is None and not _MAC.match(port_id))):
        return port_id
    return descr or None


def _unquote(value: str) -> str:
    value = value.strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value


_SYSTEM_NAME = lazy(r"System ?Name")
_RULE_RUN = lazy(r"[-\u2026]+")
_WORD_RUN = lazy(r"\S+")


class _Reader:
    def __init__(self, text: str, path: str, first_line: int):
        self.lines = text.split("\n")
        self.text = text
        self.path = path
        self.first = first_line
        self.neighbors: list[Neighbor] = []
        self.issues: list[ParseIssue] = IssueList()
        self.port: str | None = None  # the interface the command that printed the text named, if it named one

    def issue(self, line: int, message: str) -> None:
        self.issues.append(ParseIssue(code="SYS002", message=message, source=line_source(self.path, line)))

    def add(self, port: str, device: str | None, remote_port: str | None, line: int) -> None:
        if not device:
            self.issue(line, f"LLDP neighbour on {port} has no system name or chassis ID; skipped")
            return
        self.neighbors.append(neighbor(port, device, remote_port, "lldp", line_source(self.path, line)))

    def numbered(self) -> Iterator[tuple[int, str]]:
        for n, line in enumerate(self.lines):
            yield self.first + n, line

    # -- Arista EOS ---------------------------------------------------------------------------
    def eos_table(self) -> None:
        """`Port  Neighbor Device ID  Neighbor Port ID  TTL` rows, after the table-change counters."""
        in_table = False
        for n, line in self.numbered():
            if _EOS_TABLE_HEADER.match(line):
                in_table = True
                continue
            words = line.split()
            if not in_table or not words or set(line.strip()) <= {"-", " "}:
                continue
            if len(words) != 4 or not is_digits(words[3]):
                self.issue(n, f"cannot read LLDP row {line.strip()[:80]!r}: expected PORT DEVICE-ID PORT-ID TTL; "
                              "row skipped")
                continue
            port_id = words[2]
            self.add(long_interface_name(words[0]), words[1], None if _MAC.match(port_id) else port_id, n)

    def eos_detail(self) -> None:
        """`Interface Ethernet1 detected 1 LLDP neighbors:` blocks of `Neighbor ...` entries."""
        iface: str | None = None
        current: dict | None = None

        def flush() -> None:
            if current is not None and iface is not None:
                self.add(iface, current.get("name") or current.get("chassis"),
                         _remote_port(current.get("subtype"), current.get("id"), current.get("descr")), current["line"])

        for n, line in self.numbered():
            text = line.strip()
            if m := _EOS_DETAIL_IFACE.match(line):
                flush()
                iface, current = long_interface_name(m.group(1)), None
            elif text.startswith("Neighbor ") and iface is not None:
                flush()
                current = {"line": n}
            elif current is None:
                continue
            elif text.startswith("- Port ID type:"):
                kind = text.split(":", 1)[1].lower()
                current["subtype"] = ("ifname" if "interface name" in kind else "mac" if "mac" in kind
                                      else "local" if "local" in kind else "ifalias" if "alias" in kind else "other")
                current["want_id"] = True
            elif text.startswith("Port ID") and ":" in text and current.pop("want_id", False):
                current["id"] = _unquote(text.split(":", 1)[1])
            elif text.startswith("- Port Description:"):
                current["descr"] = _unquote(text.split(":", 1)[1])
            elif text.startswith("- System Name:"):
                current["name"] = _unquote(text.split(":", 1)[1])
            elif text.startswith("Chassis ID") and ":" in text:
                current.setdefault("chassis", text.split(":", 1)[1].strip())
        flush()

    # -- Cisco NX-OS --------------------------------------------------------------------------
    def nxos_table(self) -> None:
        """`Device ID  Local Intf  Hold-time  Capability  Port ID` rows; a Device ID longer than its column is on a
        line of its own, the rest of the row on the next (indented) line. No capability, no port ID: empty."""
        header_at: int | None = None
        local_col = port_col = 0
        pending: tuple[str, int] | None = None  # (device ID alone on its line, line)
        for n, line in self.numbered():
            if _NXOS_TABLE_HEADER.match(line):
                header_at, local_col, port_col, pending = n, line.index("Local Intf"), line.index("Port ID"), None
                continue
            if header_at is None or not line.strip():
                continue
            if _TRAILER.match(line) or PROMPT_ALONE.match(line):
                pending = None
                continue
            words = list(_WORD_RUN.finditer(line))
            if len(words) == 1 and not line[0].isspace():
                pending = (words[0].group(), n)
                continue
            if line[0].isspace():
                if pending is None:
                    self.issue(n, f"cannot read LLDP row {line.strip()[:80]!r}: no Device ID before it; row skipped")
                    continue
                device, at = pending
            elif line[local_col - 1:local_col] == " " and line[local_col:local_col + 1].strip():
                # the Device ID is what stands before the Local Intf column (a system name may hold spaces)
                device, at, words = line[:local_col].strip(), n, [w for w in words if w.start() >= local_col]
            else:
                device, at, words = words[0].group(), n, words[1:]
            pending = None
            if len(words) < 2 or not is_digits(words[1].group()):
                self.issue(n, f"cannot read LLDP row {line.strip()[:80]!r}: expected DEVICE-ID LOCAL-INTF HOLD-TIME "
                              "[CAPABILITY] [PORT-ID]; row skipped")
                continue
            rest = words[2:]
            if rest and rest[0].start() < port_col - 1 and _NXOS_CAPS.match(rest[0].group()):
                rest = rest[1:]
            port_id = line[rest[0].start():].strip() if rest else None
            self.add(long_interface_name(words[0].group()), device, _remote_port(None, port_id or None, None), at)

    def nxos_detail(self) -> None:
        """Blocks that begin `Chassis id:`, with `Port id:`, `Local Port id:` (IOS: `Local Intf:`), `Port
        Description:` and `System Name:` lines. A MAC port ID (a host's lldpd) gives way to the port description.
        A block without a local interface line is of the interface the command named (a per-interface detail
        command in the prompt line before it, several of which may follow each other in one file)."""
        current: dict | None = None
        port = self.port

        def flush() -> None:
            if current is None:
                return
            local = current.get("Local Port id") or current.get("Local Intf") or current.get("command port")
            if not local:
                self.issue(current["line"], "LLDP neighbour block names no local interface (no `Local Port id:` or "
                           "`Local Intf:` line, which some IOS releases do not print) and no per-interface command "
                           "(`show lldp neighbors Gi1/0/1 detail` in a prompt line before it) names one; skipped")
                return
            name, chassis = _sent(current.get("System Name")), _sent(current.get("Chassis id"))
            descr = _sent(current.get("Port Description"))
            self.add(long_interface_name(local), name or chassis,
                     _remote_port(None, _sent(current.get("Port id")), descr if descr and " " not in descr else None),
                     current["line"])

        for n, line in self.numbered():
            m = _NXOS_DETAIL_KEY.match(line)
            if m is None:
                if line.strip().startswith("-----"):  # IOS's rule between blocks
                    flush()
                    current = None
                elif prompt := _PROMPT_COMMAND.match(line):  # the next command's output begins
                    flush()
                    current, port = None, _typed_port(command_port(prompt.group("command")))
                continue
            key, value = m.group(1), m.group(2).strip()
            if current is None or key in current:  # NX-OS begins a block with `Chassis id:`, IOS with `Local Intf:`
                flush()
                current = {"line": n, "command port": port}
            current[key] = value
        flush()

    # -- SONiC, Cumulus ------------------------------------------------------------------------
    def ruled_table(self) -> None:
        """SONiC `show lldp table`, NVUE `nv show interface lldp`, NCLU `net show lldp`: columns cut where the dash
        rule under the header puts them (an empty capability or description is blank, a description may hold
        spaces), each column known by its header. An interface with neither a remote host nor a port has no
        neighbour (NVUE lists every interface)."""
        header: str | None = None
        roles: dict[str, int] | None = None
        starts: list[int] = []
        for n, line in self.numbered():
            if _RULED_HEADER.match(line):
                header, roles = line, None
                continue
            if header is None or not line.strip():
                continue
            if roles is None and set(line.strip()) <= {"-", " ", "\u2026"}:
                starts = [m.start() for m in _RULE_RUN.finditer(line)]
                names = [" ".join(header[a:b].split()) for a, b in zip(starts, [*starts[1:], len(header) + 1],
                                                                      strict=True)]
                roles = {_RULED_ROLES[name]: i for i, name in enumerate(names) if name in _RULED_ROLES}
                if not {"local", "device", "port"} <= roles.keys():
                    self.issue(n, "the dash rule under the LLDP table's header does not cut it into its columns; "
                                  "table skipped")
                    header = roles = None
                continue
            if roles is None or set(line.strip()) <= {"-"} or _TRAILER.match(line) or PROMPT_ALONE.match(line):
                continue
            cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], len(line) + 1], strict=True)]
            cut = [line[a - 1:a] for a in starts[1:] if a - 1 < len(line)]
            if not cells[0] or any(c.strip() for c in cut) or line[:starts[0]].strip():
                self.issue(n, f"cannot read LLDP row {line.strip()[:80]!r}: its columns are not under the header's; "
                              "row skipped")
                continue
            device, port_id = cells[roles["device"]], cells[roles["port"]]
            descr = cells[roles["descr"]] if "descr" in roles else ""
            if not device and not port_id:
                continue
            self.add(cells[roles["local"]], device, _remote_port(None, port_id or None,
                                                                 descr if descr and " " not in descr else None), n)

    # -- Junos ---------------------------------------------------------------------------------
    def junos_table(self) -> None:
        """`Local Interface  [Parent Interface]  Chassis Id  Port info  System Name` rows. A port info that names no
        port (Junos's own default port ID is an SNMP ifIndex, `651`; a description with spaces) is left unknown."""
        parent = False
        name_col: int | None = None
        for n, line in self.numbered():
            if _JUNOS_TABLE_HEADER.match(line):
                parent, name_col = "Parent" in line, _SYSTEM_NAME.search(line).start()  # type: ignore[union-attr]
                continue
            if name_col is None or not line.strip() or _TRAILER.match(line) or PROMPT_ALONE.match(line):
                continue
            words = list(_WORD_RUN.finditer(line))
            lead = 3 if parent else 2  # local, [parent], chassis
            if len(words) < lead + 1:
                self.issue(n, f"cannot read LLDP row {line.strip()[:80]!r}: expected LOCAL-INTERFACE "
                              f"{'PARENT-INTERFACE ' if parent else ''}CHASSIS-ID PORT-INFO SYSTEM-NAME; row skipped")
                continue
            rest = words[lead:]
            # The system name starts under its header. When a long port info pushed it right, a lone word after the
            # port info is the name; more words (`... Onyx Switch 7`) could split anywhere, and a cell across a column
            # edge is never guessed (as in the ruled tables). No word reaching the column: no system name.
            at = next((i for i, w in enumerate(rest) if w.start() == name_col), None)
            if at is None:
                if rest[-1].end() < name_col:
                    at = len(rest)
                elif len(rest) > 2:
                    self.issue(n, f"cannot read the LLDP row of {words[0].group()[:40]}: no word of "
                                  f"{line[rest[0].start():].strip()[:80]!r} starts under `System Name`, so where the "
                                  "port info ends and the system name begins is not known; row skipped")
                    continue
                else:
                    at = len(rest) - 1 if len(rest) > 1 else (0 if rest[0].start() >= name_col else 1)
            info = line[rest[0].start():rest[at - 1].end()] if at > 0 else ""
            device = line[rest[at].start():].strip() if at < len(rest) else words[lead - 1].group()
            port = _junos_port(info) if _PORT_NAME.match(info) and not _MAC.match(info) else None
            self.add(_junos_port(words[0].group()), device, port, n)

    # -- lldpd --------------------------------------------------------------------------------
    def keyvalue(self) -> None:
        """`lldp.eth0.chassis.name=leaf1`, `lldp.eth0.port.ifname=Ethernet0`, `lldp.eth0.port.descr=...`
        (lldpd src/client/kv_writer.c: the interface name and the ID subtype become key parts)."""
        entries: list[dict] = []
        last: dict[str, dict] = {}
        search = _KEYVALUE_KEY.search
        for n, line in enumerate(self.lines, start=self.first):
            line = line.strip()  # (_keyvalue's reading, inline: a host's table is read line by line)
            if not line.startswith("lldp.") or (m := search(line, 6)) is None:
                continue
            iface, key, value = line[5:m.start()], m[1], line[m.end():].strip()
            entry = last.get(iface)
            if entry is None or key in entry:  # a key seen again on one interface: its next neighbour
                entry = last[iface] = {"iface": iface, "line": n}
                entries.append(entry)
            entry[key] = value
        for e in entries:
            subtype = next((k.split(".")[1] for k in e if k.startswith("port.") and k != "port.descr"), None)
            chassis = next((v for k, v in e.items() if k.startswith("chassis.") and k != "chassis.name"), None)
            self.add(e["iface"], e.get("chassis.name") or chassis,
                     _remote_port(subtype, e.get(f"port.{subtype}"), e.get("port.descr")), e["line"])

    def json(self, text: str) -> None:
        """`lldpcli -f json` ({"lldp": {"interface": {IF: {...}}}}, a list of such objects when there
        are several) and `-f json0` (lists everywhere, names in "name" fields). ``text``: the output with the prompt
        lines around the document blanked (cli_json), read and searched at the output's own positions."""
        try:
            data = json_value(text)  # (its words for nesting too deep, huge integers)
        except ValueError as exc:
            self.issue(self.first, f"LLDP output is not valid JSON ({exc}); skipped")
            return
        lldp = data.get("lldp") if isinstance(data, dict) else None
        if isinstance(lldp, list):  # json0
            lldp = lldp[0] if lldp and isinstance(lldp[0], dict) else {}
        if not isinstance(lldp, dict):
            self.issue(self.first, 'LLDP JSON has no "lldp" object; skipped')
            return
        interfaces = lldp.get("interface") or []
        items = interfaces if isinstance(interfaces, list) else [interfaces]
        search_from = 0
        line_at = LineAt(text, self.first)
        for item in items:
            for iface, body in _json_interfaces(item):
                # The name as a key, or json0's "name" value (a port id of the entry before may be the same name).
                quoted = re.escape(json.dumps(iface))
                key = re.compile(rf'{quoted}\s*:|"name"\s*:\s*{quoted}').search(text, search_from)
                pos = key.start() if key else -1
                search_from = max(search_from, pos + 1)
                line = line_at(pos) if pos >= 0 else self.first
                if not isinstance(body, dict):
                    self.issue(line, f"LLDP JSON entry for {iface} is not an object; skipped")
                    continue
                name, chassis_id = _json_chassis(body.get("chassis"))
                subtype, port_id, descr = _json_port(body.get("port"))
                self.add(iface, name or chassis_id, _remote_port(subtype, port_id, descr), line)

    def lldpctl(self) -> None:
        """lldpctl's default text: `Interface: eth0, via: LLDP`, `SysName:`, `PortID: ifname X`, `PortDescr:`."""
        current: dict | None = None

        def flush() -> None:
            if current is not None:
                self.add(current["iface"], current.get("name") or current.get("chassis"),
                         _remote_port(current.get("subtype"), current.get("id"), current.get("descr")), current["line"])

        for n, line in self.numbered():
            text = line.strip()
            if m := _LLDPCTL_IFACE.match(text):
                flush()
                current = {"iface": m.group(1), "line": n}
            elif current is not None and ":" in text:
                label, value = (part.strip() for part in text.split(":", 1))
                if label == "SysName":
                    current["name"] = value
                elif label == "ChassisID":
                    current["chassis"] = value.split(" ", 1)[-1]
                elif label == "PortID":
                    current["subtype"], _, current["id"] = value.partition(" ")
                elif label == "PortDescr":
                    current["descr"] = value
        flush()


def _json_interfaces(item) -> Iterator[tuple[str, object]]:
    if not isinstance(item, dict):
        return
    if "name" in item and isinstance(item.get("name"), str):  # json0: {"name": "eth0", "chassis": [...]}
        yield item["name"], item
        return
    for iface, body in item.items():
        yield str(iface), body


def _value(node) -> str | None:
    """A json0 `[{"value": "x"}]`, a json `{"value": "x"}` / `"x"`."""
    if isinstance(node, list):
        node = node[0] if node else None
    if isinstance(node, dict):
        node = node.get("value")
    return node if isinstance(node, str) else None


def _json_chassis(chassis) -> tuple[str | None, str | None]:
    if isinstance(chassis, list):
        chassis = chassis[0] if chassis else None
    if not isinstance(chassis, dict):
        return None, None
    if "id" not in chassis and len(chassis) == 1:  # json: {"leaf1": {"id": ...}}, keyed by the system name
        name, body = next(iter(chassis.items()))
        return str(name), _value(body.get("id")) if isinstance(body, dict) else None
    return _value(chassis.get("name")), _value(chassis.get("id"))


def _json_port(port) -> tuple[str | None, str | None, str | None]:
    if isinstance(port, list):
        port = port[0] if port else None
    if not isinstance(port, dict):
        return None, None, None
    pid = port.get("id")
    if isinstance(pid, list):
        pid = pid[0] if pid else None
    subtype = pid.get("type") if isinstance(pid, dict) and isinstance(pid.get("type"), str) else None
    return subtype, _value(pid), _value(port.get("descr"))
