"""A summary of OpenSM's partitions.conf: name, P_Key, IPoIB flag, broadcast-group SL, members, other groups' SLs.

man opensm, PARTITION CONFIGURATION: `<Partition Definition>:[<newline>]<Partition Properties>;`
with the definition `[PartitionName][=PKey][,ipoib_bc_flags][,defmember=full|limited]`, flags
such as `ipoib`, `sl=<val>`, `mtu=<val>`; `#` starts a comment; white space is allowed between
delimiters; the properties (ports, multicast groups) may span lines, the definition and its `:` may not
(osm_prtn_config.c reads line by line). Example:
`Default=0x7fff, ipoib, defmember=full : ALL=full;`.
"""

from __future__ import annotations

import dataclasses
import ipaddress

from ...lazyre import lazy
from ...model import DEFAULT_MGRP_MTU_CODE, DEFAULT_MGRP_RATE_CODE, IbPartition, ParseIssue, Source
from ...units import is_digits
from ..base import IssueList, LineAt
from .options import c_number, c_whole

# What osm_prtn_config.c (linux-rdma/opensm fa74b98c) partition_add_port takes as a port: nothing or a prefix of
# `NONE` (no port), a prefix of one of these keywords (strncmp over the name's length, case-sensitive), or a GUID that
# strtoull reads whole and is not 0; anything else is "PARSE ERROR: line N: bad PortGUID".
_KEYWORDS = ("ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF")
# The IPoIB broadcast group's MGID with its P_Key bits all ones (osm_prtn_config.c osm_ipoib_broadcast_mgid).
_IPOIB_BROADCAST = ipaddress.IPv6Address("ff12:401b:ffff::ffff:ffff").packed


def _broadcast_mgid(pkey: int) -> bytes:
    """The MGID of a partition's IPoIB broadcast group: its P_Key, full-membership bit set, in bytes 4-5."""
    return _IPOIB_BROADCAST[:4] + (pkey | 0x8000).to_bytes(2, "big") + _IPOIB_BROADCAST[6:]
# OpenSM's parser stops at its first PARSE ERROR (osm_prtn_config_parse_file breaks out of its loop), and a file with
# no partition fails too; osm_prtn.c osm_prtn_make_partitions then logs "Partition configuration in error; retrying
# with default config": every port leaves the file's partitions, which are removed as empty, and the Default partition
# 0x7fff takes ALL ports as full members with an IPoIB broadcast group (prtn_make_default; linux-rdma/opensm 5a97c782).
_STOPS = ("OpenSM stops reading partitions.conf at this line (PARSE ERROR) and falls back to its default partition "
          "(\"Partition configuration in error; retrying with default config\"): no partition of the file is "
          "configured, every port is a full member of Default=0x7fff")


# osm_prtn_config_parse_file reads with fgets(line, sizeof(line) - 1) into char line[4096]: at most 4094 characters a
# read, its newline counted, so OpenSM reads a longer line as several, cutting whatever stands at each cut.
_FGETS = 4094


def read(text: str, path: str) -> tuple[list[IbPartition], list[ParseIssue]]:
    """The partitions as OpenSM makes them from `text`: its lines as fgets reads them, `#` cutting each read."""
    lines = text.split("\n")
    long = [n for n, line in enumerate(lines, 1) if len(line) >= _FGETS]
    parts, issues = _read("\n".join(line[i:i + _FGETS].split("#", 1)[0] for line in lines
                                     for i in range(0, len(line) + 1, _FGETS)), path)  # (a line of 4094: two reads)
    if long:  # lines as the file numbers them, not as OpenSM counts its reads
        at = [n for n, line in enumerate(lines, 1) for _ in range(len(line) // _FGETS + 1)]
        seen: set[int] = set()
        for source in [*(i.source for i in issues), *(p.source for p in parts)]:
            if source is not None and id(source) not in seen and source.line is not None:
                seen.add(id(source))
                source.line = at[source.line - 1]
        for part in parts:
            part.group_lines = {mgid: at[line - 1] for mgid, line in part.group_lines.items()}
        issues += [ParseIssue(code="SYS002", source=Source(file=path, line=n), message=(
            f"line {n} is longer than {_FGETS} characters: OpenSM reads it in {_FGETS}-character pieces "
            "(fgets), splitting the port GUID, flag or name at each cut; break the line after a `,`")) for n in long]
    return parts, issues


_STATEMENT_END = lazy(r";")


def _read(body: str, path: str) -> tuple[list[IbPartition], list[ParseIssue]]:
    parts: list[IbPartition] = []
    issues: list[ParseIssue] = IssueList()
    start = 0
    line_at = LineAt(body)
    made: dict[bytes, tuple[int, str]] = {}  # the subnet's multicast groups: MGID -> the line and MGID that made it
    made_so_far = _Made()

    def stop(line: int, why: str, fix: str, made: list[IbPartition]) -> tuple[list[IbPartition], list[ParseIssue]]:
        issues.append(ParseIssue(code="SYS002", message=f"{why}: {_STOPS}; {fix}", source=Source(file=path, line=line)))
        return [_default(made, Source(file=path, line=line))], issues

    for m in _STATEMENT_END.finditer(body + ";"):
        stmt, offset = body[start:m.start()], start
        start = m.end()
        if not stmt.strip():
            continue
        first = line_at(offset + len(stmt) - len(stmt.lstrip()))
        src = Source(file=path, line=first)
        definition, sep, props = stmt.lstrip().partition(":")
        if not sep:
            if m.start() < len(body):
                return stop(first, f"partition {' '.join(stmt.split())[:60]!r} has no `:` between its definition and "
                            "its members", "write `<name>=<P_Key>[,flags] : <ports>;`", parts)
            return stop(first, "text after the last `;` is not a complete partition",
                        "restore the file's end (truncated?)", parts)
        if "\n" in definition.strip():  # OpenSM looks for the `:` on the line a partition starts on
            return stop(first, f"partition definition {definition.strip().split(chr(10))[0][:60]!r} has no `:` on its "
                        "line (OpenSM takes a definition and its `:` on one line)",
                        "join the definition's lines up to its `:`", parts)
        if m.start() >= len(body):
            issues.append(ParseIssue(code="SYS002", message="the last partition is not closed by `;` (file "
                                     "truncated?); read anyway", source=src))
        read_as = _partition(definition, src, issues)
        if read_as is None:
            return stop(first, f"partition definition {' '.join(definition.split())[:60]!r}: its P_Key is not a "
                        "number (bad partition definition)", "write the P_Key as a number (0x8001)", parts)
        part, defmember = read_as
        earlier = made_so_far.find(part)
        if earlier is not None:
            part.pkey = earlier.pkey
        elif part.pkey is None:
            part.pkey = made_so_far.generated()
            if part.pkey is None:  # (osm_prtn_make_new returns NULL, partition_create -1)
                return stop(first, f"partition {part.name!r} has no P_Key and OpenSM has none left to generate "
                            "(generate_pkey counts from 0x0001 to 0x7ffe, passing over those the file made): bad "
                            "partition definition", "write the partition's P_Key", parts)
        if part.ipoib and part.pkey is not None:  # partition_create makes the broadcast group first
            made.setdefault(_broadcast_mgid(part.pkey), (first, "its IPoIB broadcast group"))
        bad = _properties(part, props, src, issues, (made, _scope_mask(definition.split(",")[1:])), defmember)
        if bad:
            # (a partition not closed by `;` takes the next line's definition as its ports)
            return stop(bad[0], f"partition {part.name!r}: {bad[1][:60]!r} is not a port GUID, ALL, ALL_CAS, "
                        "ALL_SWITCHES, ALL_ROUTERS or SELF (bad PortGUID)",
                        f"end partition {part.name!r} with `;` before the next one" if ":" in bad[1] else
                        "write the ports' GUIDs (0x0002c903000e0b72=full); a host name or a pattern is not one",
                        [*parts, part] if earlier is None else parts)
        if earlier is None:
            parts.append(part)
            made_so_far.add(part)
        else:
            _add_to(earlier, part)
    if not parts:
        return stop(1, "partitions.conf holds no partition", "write the partitions (`Default=0x7fff, ipoib : "
                    "ALL=full;`) or remove the file", parts)
    for part in parts:
        part.members = _last_of_each(part.members)
    # a partition left without ports is removed with its multicast groups (osm_prtn.c osm_prtn_make_partitions,
    # osm_prtn_delete); never Default, which OpenSM gives every port before it reads the file (prtn_make_default)
    return [p for p in parts if p.members or p.is_default()], issues


def _last_of_each(members: list[str]) -> list[str]:
    """A partition's ports with each named once, at its last entry and with its last membership: osm_prtn.c
    osm_prtn_add_port takes a port named again out of both of the partition's tables before it adds it ("already in
    partition ... Will overwrite"), and with allow_both_pkeys osm_prtn_config.c manage_membership_change takes it out
    of the other table for `=full` or `=limited`, so in either mode the last entry is the one OpenSM keeps. A GUID is
    one port however it is written (strtoull: `0x2c9...` and `0x0002c9...`)."""
    last: dict[object, str] = {}
    for member in members:
        port = member.rpartition("=")[0]
        key = port if _keyword(port) else c_number(port, 64, False)[0]
        last.pop(key, None)  # (moved to where it was last written: a later ALL still covers it, an earlier one not)
        last[key] = member
    return list(last.values())


def _default(made: list[IbPartition], src: Source) -> IbPartition:
    """The Default partition OpenSM falls back to: ALL ports full members and an IPoIB broadcast group. A Default
    (0x7fff) the file made with `ipoib` before the error keeps its SL and its groups' flags (osm_prtn_make_new finds
    the partition, osm_prtn_add_mcgroup the group: OpenSM deletes neither)."""
    kept = next((p for p in made if p.is_default() and p.ipoib), None)
    if kept is not None:
        return dataclasses.replace(kept, members=["ALL=full"])
    return IbPartition(name="Default", pkey=0x7FFF, ipoib=True, members=["ALL=full"], source=src)


class _Made:
    """The partitions made so far, found as osm_prtn.c osm_prtn_make_new finds the one a definition adds its ports to:
    without a P_Key (0, or the membership bit alone) the one of its name (osm_prtn_find_by_name: the first in the
    subnet's P_Key table, which a little-endian host orders by the P_Key's bytes swapped); with one, the one of that
    P_Key, the membership bit dropped ("Duplicated partition definition ... Will use it", the earlier name kept).
    A definition without a P_Key whose name no partition has gets one generated (generate_pkey: a counter that
    osm_prtn_make_partitions sets to 0 before Default 0x7fff is made, each P_Key the next number the table does not
    hold yet), as OpenSM makes them on its first reading of the file: a re-read keeps the partitions it made before,
    whose P_Keys a new name's counter then passes over."""

    def __init__(self) -> None:
        self.by_key: dict[int, IbPartition] = {}
        self.by_name: dict[str, list[IbPartition]] = {}
        self.counter = 0

    def find(self, part: IbPartition) -> IbPartition | None:
        if part.pkey is not None:
            return self.by_key.get(part.pkey & 0x7FFF)
        named = self.by_name.get(part.name, []) if part.name else []
        return min(named, key=lambda p: int.from_bytes((p.pkey or 0).to_bytes(2, "big"), "little") & 0xFF7F,
                   default=None)

    def generated(self) -> int | None:
        """The P_Key generate_pkey gives the next partition without one; None when the counter has run out (0x7ffe:
        OpenSM then makes no partition)."""
        while self.counter < 0x7FFF - 1:
            self.counter += 1
            if self.counter not in self.by_key:
                return self.counter
        return None

    def add(self, part: IbPartition) -> None:
        if part.pkey is not None:
            self.by_key.setdefault(part.pkey & 0x7FFF, part)
        self.by_name.setdefault(part.name, []).append(part)


def _add_to(earlier: IbPartition, again: IbPartition) -> None:
    """A partition defined again (osm_prtn_config.c partition_create on the partition osm_prtn_make_new found): its
    ports and groups join the earlier ones (a port named again takes its last membership, osm_prtn_add_port); the
    partition's SL becomes this definition's, OSM_DEFAULT_SL when it writes none (`conf->p_prtn->sl =
    conf->flags.sl`), while a broadcast group the earlier definition made keeps its flags (no second group of an
    MGID), so its SL stays the earlier one's."""
    earlier.members += again.members
    earlier.group_sls.update(again.group_sls)
    earlier.group_lines.update(again.group_lines)
    if earlier.ipoib and earlier.sl != again.sl and earlier.sl is not None and earlier.pkey is not None:
        earlier.group_sls.setdefault(str(ipaddress.IPv6Address(_broadcast_mgid(earlier.pkey))), earlier.sl)
    if again.ipoib and not earlier.ipoib:
        earlier.mtu_code, earlier.rate_code = again.mtu_code, again.rate_code
    earlier.ipoib = earlier.ipoib or again.ipoib
    earlier.sl = again.sl


def _partition(definition: str, src: Source, issues: list[ParseIssue]) -> tuple[IbPartition, str] | None:
    """The definition `[name][=P_Key][,flag[=value]]...` and the membership of its ports written without one
    (`defmember`, limited unless written: osm_prtn_config.c new_part_conf); None when OpenSM refuses its P_Key."""
    head, *flags = [f.strip() for f in definition.split(",")]
    name, _, pkey_text = (s.strip() for s in head.partition("="))
    if not pkey_text and is_digits(name[:1]):  # `0x8001 : ...`: a name starting with a digit is the P_Key
        name, pkey_text = "", name
    pkey = sl = mtu = rate = None
    if pkey_text:
        if not c_whole(pkey_text):  # strtoul must read it whole (partition_create; a sign it takes)
            return None
        pkey, clean = c_number(pkey_text, 16, False)
        if not clean:  # (uint16_t)strtoul: a negative number wrapped round, then cut
            issues.append(ParseIssue(code="SYS002", message=f"partition {name!r}: P_Key {pkey_text!r} is no 16-bit "
                                     f"number; OpenSM takes the low 16 bits strtoul gives, {pkey:#06x}", source=src))
    if (pkey or 0) & 0x7FFF == 0:
        # osm_prtn_make_new: a P_Key of 0 (none written, or the membership bit alone) finds the partition by its name,
        # and `Default` is the one prtn_make_default made, 0x7fff, before the file is read (osm_prtn_make_partitions);
        # another name not found gets a generated one (_Made.generated)
        pkey = 0x7FFF if name == "Default" else None
    ipoib = False
    defmember = "limited"
    for flag in flags:
        written, has_value, value = (s.strip() for s in flag.partition("="))
        if not written:  # (`ipoib, :`: OpenSM takes the empty flag as `mtu` without a value and skips it)
            continue
        key = _flag(written)
        if key is None:
            issues.append(ParseIssue(code="SYS002", message=f"partition {name!r}: {written!r} is no partition flag "
                                     f"OpenSM knows ({', '.join(_FLAGS)}, indx0; case matters): OpenSM logs "
                                     "\"unrecognized partition flag\" and ignores it", source=src))
        ipoib = ipoib or key == "ipoib"
        if key == "defmember":  # partition_add_flag: a prefix of limited, both or full (strncmp), else skipped
            member = _membership(value) if has_value else None
            if member is None:
                issues.append(ParseIssue(code="SYS002", source=src, message=(
                    f"partition {name!r}: defmember={value!r} is not limited, both or full: OpenSM logs \"flag "
                    "'defmember' requires valid value\" and skips it, so ports written without `=full` are limited")))
            defmember = member or defmember
        if key == "sl":
            sl, clean = c_number(value, 8, False)
            if not clean or sl > 15:
                issues.append(ParseIssue(code="SYS002", message=f"partition {name!r}: sl={value!r} is not an SL 0-15",
                                         source=src))
                sl = None
        elif key in ("mtu", "rate"):  # IBA encodings, checked by IBS008
            number, clean = c_number(value, 8, False)
            if not clean:
                issues.append(ParseIssue(code="SYS002", message=f"partition {name!r}: {key}={value!r} is not a number",
                                         source=src))
                number = None
            mtu, rate = (number, rate) if key == "mtu" else (mtu, number)
    return IbPartition(name=name, pkey=pkey, ipoib=ipoib, sl=sl, mtu_code=mtu, rate_code=rate,
                       source=src), defmember


def _membership(written: str) -> str | None:
    """A membership word as osm_prtn_config.c compares it: strncmp over its length, so any prefix (even an empty one)
    of `full`, then `both`, then `limited`."""
    return next((word for word in ("full", "both", "limited") if word.startswith(written)), None)


# The flags of a partition definition in the order osm_prtn_config.c tries them (parse_group_flag, then
# partition_add_flag): each matched by strncmp over the length written, so a prefix (`ip`, `m`) is the first flag it
# begins, and case matters (`IPoIB` is none); `indx0` only whole.
_FLAGS = ("mtu", "rate", "scope", "Q_Key", "TClass", "sl", "FlowLabel", "ipoib", "defmember")


def _flag(written: str) -> str | None:
    if written == "indx0":
        return written
    return next((flag for flag in _FLAGS if flag.startswith(written)), None)


def _properties(part: IbPartition, props: str, src: Source, issues: list[ParseIssue],
                groups: tuple[dict[bytes, tuple[int, str]], int], defmember: str) -> tuple[int, str] | None:
    """Add the ports of a partition's properties to it, line by line as OpenSM reads them (parse_part_conf): ports
    split by `,`, each with the membership OpenSM gives it (partition_add_port: its own `=flag`, an unknown one read as
    limited, else the partition's `defmember`); an `mgid=` entry is a multicast group that takes the rest of its line
    as its flags. Returns the line and text of a port OpenSM refuses (it stops there), else None."""
    for n, text in enumerate(props.split("\n"), src.line or 1):
        tokens = text.split(",")
        for i, token in enumerate(tokens):
            port, flagged, value = (s.strip() for s in token.partition("="))
            if port == "mgid":
                _group(part, value, tokens[i + 1:], Source(file=src.file, line=n), issues, groups)
                break
            if not port or "NONE".startswith(port):
                continue
            if not _port_ok(port):
                return n, token.strip()
            port = _keyword(port) or port  # (`AL` is ALL as OpenSM reads it: IbPartition.members names it in full)
            part.members.append(f"{port}={(_membership(value) or 'limited') if flagged else defmember}")
    return None


def _group(part: IbPartition, mgid: str, flags: list[str], src: Source, issues: list[ParseIssue],
           groups: tuple[dict[bytes, tuple[int, str]], int]) -> None:
    """An `mgid=` group's own `sl=` (osm_prtn_config.c mgroup_create: the partition's flags, then its own), when
    OpenSM makes the group: its GID is multicast (else "gid is not multicast"), an IP group's (signature 0x401b
    or 0x601b) P_Key bits, rate and MTU match its partition's broadcast group (ip_mgroup_pkey_ok/_rate_ok/_mtu_ok),
    and no group of the subnet has its MGID yet."""
    try:
        raw = ipaddress.IPv6Address(mgid).packed if "%" not in mgid else b""  # (inet_pton takes no `%scope`)
    except ValueError:
        raw = b""
    if raw[:1] != b"\xff":
        issues.append(ParseIssue(code="SYS002", source=src, message=f"partition {part.name!r}: mgid {mgid[:60]!r} is "
                                 "not a multicast GID (ff..): OpenSM logs \"gid is not multicast\" and makes no group; "
                                 "write the group's IPv6-form MGID (ff12:401b::1)"))
        return
    own: dict[str, int] = {}
    for flag in flags:
        written, _, value = (s.strip() for s in flag.partition("="))
        number, clean = c_number(value, 8, False)
        key = _flag(written) if written else None
        if key in ("sl", "mtu", "rate") and clean and (key != "sl" or number <= 15):  # (else skipped: the partition's)
            own[key] = number
    if raw[2:4] in (b"\x40\x1b", b"\x60\x1b"):
        mpkey = int.from_bytes(raw[4:6], "big")
        wrong = [f"{key}={own[key]}, not the broadcast group's {want}" for key, want in (
            ("rate", DEFAULT_MGRP_RATE_CODE if part.rate_code is None else part.rate_code),
            ("mtu", DEFAULT_MGRP_MTU_CODE if part.mtu_code is None else part.mtu_code)) if own.get(key, want) != want]
        if part.pkey is not None and mpkey not in (0, part.pkey | 0x8000) and raw != _IPOIB_BROADCAST:
            wrong.append(f"P_Key bits {mpkey:#06x}, not the partition's {part.pkey | 0x8000:#06x} or 0x0000")
        if wrong:
            issues.append(ParseIssue(code="SYS002", message=f"partition {part.name!r}: IP multicast group {mgid} has "
                                     f"{'; '.join(wrong)}: OpenSM logs \"IP MC group ... specified with invalid ...\" "
                                     "and makes no group; write the partition's values or leave them off",
                                     source=src))
            return
        raw = raw[:4] + (part.pkey | 0x8000 if part.pkey is not None else mpkey).to_bytes(2, "big") + raw[6:]
    # mgroup_create makes no second group of an MGID ("don't create multiple copies of the group", compared as 128-bit
    # addresses after an IP group takes its partition's P_Key), nor does osm_prtn.c osm_prtn_add_mcgroup, which sets
    # the scope nibble (each scope= of the partition and group, else link-local 2) before
    # osm_mcmr_rcv_find_or_create_new_mgrp hands back a group already made
    made, mask = groups
    mask = (mask | _scope_mask(flags)) or 1 << 2
    keys = [bytes([raw[0], raw[1] & 0xF0 | s]) + raw[2:] for s in range(16) if mask >> s & 1]
    earlier = made.get(raw) or (made[keys[0]] if all(k in made for k in keys) else None)
    if earlier is not None:
        line, what = earlier
        issues.append(ParseIssue(code="SYS002", source=src, message=(
            f"partition {part.name!r}: mgid {mgid} is the multicast group line {line} made ({what}; OpenSM compares "
            "MGIDs as 128-bit addresses, after setting an IP group's P_Key and the scope): OpenSM keeps that group and "
            "ignores this one, so its flags" + (f" (sl={own['sl']})" if "sl" in own else "") + " do nothing; remove "
            "this entry or give it an MGID of its own")))
        return
    for made_as in keys:
        made.setdefault(made_as, (src.line or 0, f"mgid={mgid}"))
    if "sl" in own:
        part.group_sls[mgid] = own["sl"]
        if src.line is not None:
            part.group_lines[mgid] = src.line


def _scope_mask(flags: list[str]) -> int:
    """The scopes of `scope=` flags as a bit mask (osm_prtn_config.c parse_group_flag: a scope 1-15, each ORed)."""
    mask = 0
    for flag in flags:
        written, _, value = (s.strip() for s in flag.partition("="))
        number, clean = c_number(value, 8, False)
        if written and _flag(written) == "scope" and clean and 0 < number <= 0xF:
            mask |= 1 << number
    return mask


def _keyword(port: str) -> str | None:
    """The keyword a port written as a prefix of one names (the first in partition_add_port's order), else None."""
    return next((k for k in _KEYWORDS if k.startswith(port)), None)


def _port_ok(port: str) -> bool:
    """A keyword, or a GUID strtoull reads whole and not 0 (partition_add_port; `-1` is 0xffffffffffffffff, a port
    osm_prtn_add_port looks up, finds none of and passes over, the file read on)."""
    return _keyword(port) is not None or (c_whole(port) and c_number(port, 64, False)[0] != 0)
