"""The SLs an OpenSM QoS policy file (qos-policy.conf) hands out.

doc/QoS_management_in_OpenSM.txt: sections `port-groups`, `qos-setup`, `qos-levels` (each
`qos-level` ... `end-qos-level` block has `name:` and `sl:`), `qos-match-rules` and the simplified
`qos-ulps` (lines `<match> : <SL>`); each closes with `end-<section>`; `#` starts a comment;
keywords are the first non-blank of a line. Only the SLs matter here: the SL2VL tables they pass
through come from opensm.conf (the `qos-setup` section is parsed and ignored by OpenSM).
"""

from __future__ import annotations

from ...lazyre import lazy
from ...model import IbSlUse, ParseIssue, Source
from ..base import IssueList
from .options import c_number

SECTIONS = ("port-groups", "qos-setup", "qos-levels", "qos-match-rules", "qos-ulps")
# What OpenSM's policy grammar takes inside the sections other than qos-ulps (linux-rdma/opensm
# opensm/osm_qos_parser_l.l, commit fa74b98c): the blocks each section opens and closes, and the keywords of
# an entry, each written with its colon (`sl: 3`; the lexer matches `sl` only before `:`). Any other line is a
# syntax error, on which OpenSM drops the whole file (osm_qos_parser_y.y osm_qos_parse_policy_file: ERR AC03,
# p_qos_policy = NULL) and applies no QoS policy. So is a line outside the sections (the grammar's top level,
# qos_policy_entries, is sections only), a qos-ulps line without its `: <SL>` and a section the file does not close.
BLOCKS = {"port-groups": ("port-group",), "qos-levels": ("qos-level",), "qos-match-rules": ("qos-match-rule",),
          "qos-setup": ("vlarb-tables", "vlarb-scope", "sl2vl-tables", "sl2vl-scope")}
KEYWORDS = frozenset((
    "name", "use", "port-guid", "target-port-guid", "source-port-guid", "source-target-port-guid", "port-name",
    "partition", "node-type", "port-num", "group", "across", "vlarb-high", "vlarb-low", "vl-high-limit", "to", "from",
    "across-to", "across-from", "sl2vl-table", "sl", "mtu-limit", "rate-limit", "packet-life", "path-bits",
    "qos-class", "source", "destination", "service-id", "pkey", "qos-level-name"))

# A qos-ulps line's match, as the lexer takes it before ` : <SL>` (osm_qos_parser_l.l fa74b98c: the ULP names in any
# case, alone or with their qualifier, lower case, and a list of numbers or ranges, decimal or 0x hex, that the
# grammar's list_of_ranges joins by `,` and `-`, blanks and new lines between tokens skipped); anything else is a
# syntax error (ERR AC03).
_NUMBER = r"(?:0[xX][0-9a-fA-F]+|[0-9]+)"  # (the lexer's two number rules)
_RANGE = rf"{_NUMBER}(?:[ \t]*-[ \t]*{_NUMBER})?"
_RANGES = rf"[ \t]*{_RANGE}(?:[ \t]*,[ \t]*{_RANGE})*"
_NUMBER_WHOLE = lazy(_NUMBER)
_ULP_MATCH = lazy(r"(?i:default|sdp|rds|iser|ipoib)"
                  r"|(?i:any)[ \t]*,[ \t]*(?:service-id|pkey|target-port-guid|source-port-guid|source-target-port-guid)"
                  rf"{_RANGES}|(?i:sdp|rds|iser)[ \t]*,[ \t]*port-num{_RANGES}"
                  rf"|(?i:srp)[ \t]*,[ \t]*target-port-guid{_RANGES}|(?i:ipoib)[ \t]*,[ \t]*pkey{_RANGES}")


def read(text: str, path: str) -> tuple[list[IbSlUse], list[ParseIssue]]:
    uses: list[IbSlUse] = []
    issues: list[ParseIssue] = IssueList()
    section: tuple[str, int] | None = None  # name, line it opened on
    level: dict | None = None  # the qos-level block being read

    def issue(line: int, message: str) -> None:
        issues.append(ParseIssue(code="SYS002", message=message, source=Source(file=path, line=line)))

    rejected = False  # a line OpenSM's grammar does not take: it drops the whole policy

    def sl_of(text: str, line: int, level: str | None = None) -> int | None:
        """The SL of a qos-ulps entry, or of the qos-level named `level`, as OpenSM's grammar takes it."""
        if not _NUMBER_WHOLE.fullmatch(text):  # (a word, or a number with more after it: a syntax error)
            refuse(line, f"SL {text[:60]!r} is not one number")
            return None
        sl = c_number(text, 64, False)[0]  # (__parser_str2uint64: strtoull(text, NULL, 0); `08` reads as 0)
        if level is None:
            if sl > 15:  # osm_qos_parser_y.y qos_ulp: "illegal SL value", and the parse fails
                refuse(line, f"qos-ulps SL {text} is above 15 (OpenSM: \"illegal SL value\")")
                return None
            return sl
        if sl > 0xFF and sl & 0xFF <= 15:
            issue(line, f"qos-level {level}: sl {text} is wider than 8 bits; OpenSM takes its low 8 bits, SL "
                        f"{sl & 0xFF}; write that")
        sl &= 0xFF  # qos_level_sl: `(uint8_t)(*p_num)`, no range check
        if sl > 15:
            issue(line, f"qos-level {level}: sl {text} is no SL 0-15; OpenSM takes it (as {sl}) and then refuses a "
                        "path record to every path this level matches (osm_sa_path_record.c: the SL is outside the "
                        "valid SL mask, IB_NOT_FOUND), so those paths get none; write an SL 0-15")
            return None
        return sl

    def refuse(line: int, what: str) -> None:
        nonlocal rejected
        issue(line, f"{what}: OpenSM fails to parse the file (ERR AC03) and applies no QoS policy from it"
                    + ("" if rejected else ", so none of its SLs is handed out"))
        rejected = True

    ulp: tuple[int, str] | None = None  # a qos-ulps entry going on over lines: the line it began on, its text
    carried = False  # the line before ended a list with a comma, so this one goes on with it
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        # (a qos-ulps entry's `:` may end its line, the SL on the next: a new line only resets the lexer's list
        # flags, and the grammar's `... TK_DOTDOT qos_ulp_sl` sees the number after it; osm_qos_parser_l.l)
        # (so may a block entry's value: `sl:` then `3` on the next line, the grammar's TK_SL then TK_NUMBER)
        before, carried = carried, line.endswith(",") or (section is not None and section[0] in (
            "qos-ulps", "qos-levels") and line.endswith(":"))
        if (section is not None and section[0] in BLOCKS and not before and not rejected
                and line not in {*BLOCKS[section[0]], *(f"end-{b}" for b in BLOCKS[section[0]]), f"end-{section[0]}"}
                and line.partition(":")[0].strip() not in KEYWORDS):
            refuse(n, f"{line[:60]!r} is not OpenSM QoS policy syntax (a block's entries are `keyword: value`, as "
                      "`name: HIGH` and `sl: 3`)")
        if section is None:
            if line in SECTIONS:
                section = (line, n)
            else:
                refuse(n, f"{line[:60]!r} is outside any QoS policy section ({', '.join(SECTIONS)})")
            continue
        name = section[0]
        if line == f"end-{name}":
            section = None
            if ulp:
                refuse(ulp[0], f"qos-ulps line {ulp[1].strip()[:60]!r} " + (
                    "has no SL after its `:`" if ulp[1].strip().endswith(":") else
                    "ends its list with `,` and has no `: <SL>`"))
                ulp = None
        elif name == "qos-levels":
            if line == "qos-level":
                level = {"line": n}
            elif line == "end-qos-level" and level is not None:
                if level.get("wait") == "sl":  # (qos_level_sl: TK_SL, then a number; the block's end is none)
                    refuse(level["wait_line"], f"qos-level {level.get('name', '?')}: `sl:` has no number after it")
                elif "sl" not in level:  # no `sl:`: paths at this level take their partition's SL
                    uses.append(IbSlUse(kind="qos-level", name=level.get("name", "?"), sl=None,
                                        source=Source(file=path, line=level["line"])))
                elif level["sl"] is not None:
                    uses.append(IbSlUse(kind="qos-level", name=level.get("name", "?"), sl=level["sl"],
                                        source=Source(file=path, line=level["sl_line"])))
                level = None
            elif level is not None and (":" in line or "wait" in level):
                key, _, value = (level.pop("wait"), "", line) if "wait" in level else line.partition(":")
                key, value = key.strip(), value.strip()
                if not value:
                    level["wait"], level["wait_line"] = key, n
                elif key == "name":
                    level["name"] = value
                elif key == "sl" and "sl" in level:  # qos_level_sl: "'qos-level' has multiple 'sl' tags"
                    refuse(n, f"qos-level {level.get('name', '?')} has a second `sl:` (line {level['sl_line']} "
                              "wrote its first; OpenSM: \"'qos-level' has multiple 'sl' tags\")")
                elif key == "sl":
                    level["sl"], level["sl_line"] = sl_of(value, n, level.get("name", "?")), n
        elif name == "qos-ulps":
            if carried:  # a list ending in `,`, or an entry in `:`, goes on on the next line (the lexer skips them)
                start, head = ulp or (n, "")
                ulp = (start, head + line + " ")
                continue
            if ulp:
                (n, head), ulp = ulp, None
                line = head + line
            match, sep, value = line.rpartition(":")
            if not sep or not match.strip():
                refuse(n, f"qos-ulps line {line[:60]!r} is not `<match> : <SL>`")
                continue
            if not _ULP_MATCH.fullmatch(match.strip()):
                refuse(n, f"qos-ulps line {line[:60]!r} matches no ULP OpenSM knows (`default`, `sdp`, `rds`, `iser`, "
                          "`ipoib`, or `any, service-id|pkey|...-port-guid`, `sdp|rds|iser, port-num`, "
                          "`srp, target-port-guid`, `ipoib, pkey` with their numbers)")
                continue
            sl = sl_of(value.strip(), n)
            if sl is not None:
                uses.append(IbSlUse(kind="qos-ulp", name=" ".join(match.split()), sl=sl,
                                    source=Source(file=path, line=n)))
    if section is not None:
        refuse(section[1], f"section {section[0]} is not closed by end-{section[0]} (file truncated?)")
    return ([] if rejected else uses), issues
