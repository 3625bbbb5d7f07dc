"""Read opensm.conf the way OpenSM reads it (opensm/osm_subnet.c, osm_subn_parse_conf_file).

Per line: anything from `#` on is a comment; the first blank-separated token is the option, the
rest of the line (trimmed, one pair of enclosing quotes removed) its value; a later line for the
same option wins; unknown options are ignored. Numbers go through strtoul/strtol with base 0
(`0x` hex, leading `0` octal) and are cut to the option's C width; booleans are TRUE or anything
else (FALSE); the string `(null)` means unset. `opensm -c FILE` writes every option this way,
each after `#` description lines.
"""

from __future__ import annotations

import difflib

from ...lazyre import lazy
from ...limits import MAX_ISSUES_PER_FILE
from ...model import IbQosSet, OpenSm, ParseIssue, Source
from ...records import record
from ..base import IssueList
from .names import KNOWN, NVIDIA_FIELDS, NVIDIA_KNOWN, SW2SW, is_known

# OpenSM's built-in defaults (include/opensm/osm_base.h; man opensm): what an absent option means.
DEFAULTS = {
    "sm_priority": 0,  # OSM_DEFAULT_SM_PRIORITY
    "sweep_interval": 10,  # OSM_DEFAULT_SWEEP_INTERVAL_SECS
    "transaction_timeout": 200,  # OSM_DEFAULT_TRANS_TIMEOUT_MILLISEC
    "transaction_retries": 3,  # man opensm --retries: "defaults to 3 retries"
    "lmc": 0,  # OSM_DEFAULT_LMC
    "max_op_vls": 5,  # OSM_DEFAULT_MAX_OP_VLS (VL0-VL14)
    "sm_sl": 0,  # OSM_DEFAULT_SL
    "lash_start_vl": 0,
    "max_reverse_hops": 0,
    "qos": False,
    "connect_roots": False,
    "ignore_other_sm": False,
    "sm_inactive": False,
    "subnet_prefix": 0xFE80000000000000,  # IB_DEFAULT_SUBNET_PREFIX
    "guid": 0,
}
# Built-in QoS tables (osm_base.h OSM_DEFAULT_QOS_*), used when neither qos_<type>_ nor qos_ sets one.
QOS_DEFAULTS = {
    "max_vls": "15",
    "high_limit": "0",
    "vlarb_high": "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0",
    "vlarb_low": "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4",
    "sl2vl": "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7",
}
QOS_TYPES = ("ca", "sw0", "swe", "rtr")  # man opensm, QOS CONFIGURATION: qos_ca_, qos_sw0_, qos_swe_, qos_rtr_
_QOS_FIELDS = tuple(QOS_DEFAULTS)

# C type of each option the model keeps (osm_subnet.c opt_tbl): (bits, signed) or "bool"/"str".
_TYPES: dict[str, object] = {
    "sm_priority": (8, False), "lmc": (8, False), "max_op_vls": (8, False), "sm_sl": (8, False),
    "lash_start_vl": (8, False), "sweep_interval": (32, False), "transaction_timeout": (32, False),
    "transaction_retries": (32, False), "max_reverse_hops": (16, False), "subnet_prefix": (64, False),
    "guid": (64, False), "qos": "bool", "connect_roots": "bool", "ignore_other_sm": "bool",
    "sm_inactive": "bool", "routing_engine": "str", "root_guid_file": "str", "qos_policy_file": "str",
    "partition_config_file": "str",
}
for _prefix in ("qos", *(f"qos_{t}" for t in (*QOS_TYPES, SW2SW))):
    _TYPES.update({f"{_prefix}_max_vls": (32, False), f"{_prefix}_high_limit": (32, True),
                   f"{_prefix}_vlarb_high": "str", f"{_prefix}_vlarb_low": "str", f"{_prefix}_sl2vl": "str"})

# Routing engines OpenSM can set up, by the exact name setup_routing_engine compares with strcmp: upstream's built-in
# modules (linux-rdma/opensm osm_opensm.c static_routing_modules) and NVIDIA OpenSM's (include/opensm/osm_opensm.h,
# OSM_ROUTING_ENGINE_IS names). Any other name in `routing_engine` is logged ("cannot find or setup routing engine")
# and skipped: the next listed engine is tried first.
ROUTING_ENGINES = frozenset({
    "minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue", "dfsssp", "sssp",
    "pqft", "chain", "dfp", "dfp2", "ar_dor", "ar_updn", "ar_ftree", "ar_torus", "kdor-hc", "kdor-ghc", "ar_minhop",
    "auto",
})
# Upstream OpenSM's QoS options (osm_subnet.c opt_tbl: qos, qos_policy_file and the qos[_ca|_sw0|_swe|_rtr]_ sets).
QOS_OPTIONS = tuple(sorted(k for k in _TYPES if k == "qos" or k.startswith("qos_") and k not in NVIDIA_KNOWN))
# How alike (difflib ratio) an unknown option must be to a QoS option to read as a misspelling of it: `qos_max_vl`
# or `qos_sl2v1` (0.95), not NVIDIA's `enhanced_qos_policy_file` (0.77 to qos_policy_file: its own option).
_NEAR = 0.85
_C_NUMBER = lazy(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def c_number(text: str, bits: int, signed: bool) -> tuple[int, bool]:
    """(value, clean): what strtoul/strtol(text, NULL, 0) gives, cut to a C integer of ``bits``.

    ``clean`` is False when the text is not just a number (C reads the leading digits, or 0), and when the number
    does not fit (a negative one for an unsigned option, one of more bits): C reads it wrapped round, as another."""
    m = _C_NUMBER.match(text)
    if m is None:
        return 0, False
    digits = m.group(2)
    base, significant = ((16, digits[2:]) if digits[:2] in ("0x", "0X") else (8, digits[1:]) if digits[0] == "0"
                         else (10, digits))
    significant = significant.lstrip("0") or "0"
    # strtoul saturates at ULONG_MAX: a number of more digits than 2^64 has is past it, without converting it
    # (CPython refuses more than 4,300 digits).
    value = 2**64 if len(significant) > {16: 16, 8: 22, 10: 20}[base] else int(significant, base)
    if value > 2**64 - 1:
        value = 2**64 - 1  # (C11 7.22.1.4p8: past the range is ULONG_MAX, the sign not applied)
    elif m.group(1) == "-":
        value = -value
    written = value
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value, m.end() == len(text.rstrip()) and value == written


def c_whole(text: str) -> bool:
    """Whether strtoul/strtoull(text, &end, 0) reads ``text`` to its end (`*end` is NUL): what partitions.conf's P_Key
    and port GUID must be (osm_prtn_config.c partition_create, partition_add_port). A sign is part of the number (C11
    7.22.1.4: a `-` negates the value in the return type, so `-1` is ULONG_MAX, no error), so a signed number is read
    whole, wrapped round, where c_number calls it not clean."""
    m = _C_NUMBER.match(text)
    return m is not None and m.end() == len(text)


@record(frozen=True)
class Option:
    """One opensm.conf option line: its value as written and where."""

    value: str
    source: Source


def read(text: str, path: str) -> dict[str, Option]:
    """Every option line of one opensm.conf, the last line of each option winning."""
    options: dict[str, Option] = {}
    for n, line in enumerate(text.split("\n"), 1):
        body = line.split("#", 1)[0]
        parts = body.split(None, 1)
        if parts:
            options[parts[0]] = Option(_clean(parts[1] if len(parts) > 1 else ""), Source(file=path, line=n))
    return options


def _clean(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value


class _Builder:
    """Typed option values with OpenSM's defaults for absent options and issues for unreadable ones."""

    def __init__(self, options: dict[str, Option]):
        self.options = options
        self.issues: list[ParseIssue] = IssueList()
        self._read: dict[str, object] = {}  # each option is read (and reported) once
        self.assigned: set[str] = set()  # options written `name = value`
        self.tables: dict[str, object] = {}

    def issue(self, key: str, message: str) -> None:
        if key not in self.assigned:  # (an `lmc = 2` line is named once, by assigned_lines)
            self.issues.append(ParseIssue(code="SYS002", message=message, source=self.options[key].source))

    def assigned_lines(self) -> None:
        """A SYS002 for each option written `name = value`, as INI files and some guides write it: OpenSM splits the
        line at its first blank (strtok_r on blanks) and takes all the rest as the value, `=` included
        (osm_subnet.c osm_subn_parse_conf_file), so `lmc = 2` sets lmc to strtoul("= 2"), 0, `qos = TRUE` leaves QoS
        off and `log_file = /var/log/opensm.log` names a file called `= /var/log/opensm.log`."""
        for key, opt in self.options.items():
            # (routing_engine's `=` is an engine name to OpenSM, which logs it and goes on: build names it so)
            if is_known(key) and key != "routing_engine" and opt.value.startswith("="):
                meant = opt.value[1:].strip()
                self.assigned.add(key)
                read = self.get(key) if _TYPES.get(key, "str") != "str" else None
                read = str(read).upper() if isinstance(read, bool) else read
                shown = "" if read is None else f" (OpenSM reads {read})"
                self.issues.append(ParseIssue(code="SYS002", source=opt.source, message=(
                    f"`{key} {opt.value}` is written with `=`: OpenSM takes everything after the name as the value, "
                    f"`=` included, so {key} is not {meant!r}{shown}; write `{key} {meant}`")))

    def get(self, key: str):
        """The option as OpenSM reads it; OpenSM's default when absent."""
        if key not in self.options:
            return DEFAULTS.get(key)
        if key not in self._read:
            self._read[key] = self._convert(key, self.options[key])
        return self._read[key]

    def _convert(self, key: str, opt: Option):
        kind = _TYPES[key]
        if kind == "str":
            return None if opt.value == "(null)" or not opt.value else opt.value
        if kind == "bool":
            if opt.value not in ("TRUE", "FALSE"):
                self.issue(key, f"{key} {opt.value!r}: OpenSM reads anything but TRUE as FALSE")
            return opt.value == "TRUE"
        bits, signed = kind
        value, clean = c_number(opt.value, bits, signed)
        if not clean:
            what = "is not a number" if not _C_NUMBER.fullmatch(opt.value.strip()) else "does not fit the option"
            self.issue(key, f"{key} {opt.value!r} {what}; OpenSM reads it as {value}")
        return value


# QoS options an older OpenSM took under another name: OpenSM before 3.2 had `no_qos` (default TRUE) where it has had
# `qos` (default FALSE) since linux-rdma/opensm commit 9d56daf8 ("changing 'no_qos' option to 'qos'", 2007); a newer
# OpenSM logs `Unrecognized token` for the old name. (old name, its value that turns the new option on.)
RENAMED = {"no_qos": ("qos", "FALSE")}


def misspelled_options(options: dict[str, Option]) -> list[ParseIssue]:
    """A SYS002 for each option line OpenSM does not know that reads as a misspelt QoS option (`qos_max_vl`,
    `QoS_sl2vl`, `qos-max-vls`), an old name of one (`no_qos`) or a read option's name spelt out word by word
    (`max_operational_vls`). OpenSM matches option names exactly (strcmp), logs `Unrecognized token` for the
    line and goes on (osm_subnet.c osm_subn_parse_conf_file), so the QoS setting stays at its default or at the
    qos_ set's. Any other name under `qos_` is named too (no OpenSM adds QoS options outside those sets). Any other
    unknown name, one of neither upstream's table nor NVIDIA's fields, is named as passed over, with the option it
    is near (`partition_config`)."""
    out: list[ParseIssue] = []
    for key, opt in options.items():
        if key in KNOWN or key in NVIDIA_FIELDS:
            continue
        if len(out) > MAX_ISSUES_PER_FILE:  # (past what a file's issues list, only counted: no name looked up near
            out.append(_passed_over(key, opt, None))  # it, each a pass over ~400 names; a hostile file has millions)
            continue
        if key in RENAMED:
            new, on = RENAMED[key]
            wanted = "on" if opt.value.strip().upper() == on else "off"
            out.append(ParseIssue(code="SYS002", source=opt.source, message=(
                f"`{key} {opt.value.strip()}` is OpenSM 3.1's option for `{new}` (renamed in 3.2, its sense "
                f"reversed): a newer OpenSM logs `Unrecognized token` and ignores the line, so {_without(new)}; "
                f"the line asks for QoS {wanted} (`{new} {'TRUE' if wanted == 'on' else 'FALSE'}`)")))
            continue
        plain = key.lower().replace("-", "_")
        meant = plain if plain in QOS_OPTIONS else next(iter(difflib.get_close_matches(plain, QOS_OPTIONS, 1, _NEAR)),
                                                         None) or _abbreviated(plain) or _unprefixed(plain) or \
            _switch_word(plain)
        if meant is not None:
            out.append(ParseIssue(code="SYS002", source=opt.source, message=(
                f"`{key}` is not an OpenSM option (did you mean `{meant}`?): OpenSM logs `Unrecognized token` and "
                f"ignores the line, so {_without(meant)}")))
        elif (nvidia := difflib.get_close_matches(plain, sorted(NVIDIA_KNOWN), 1, _NEAR_NVIDIA)):
            # `sharp_enable 1`, as AI-fabric guides write it beside `ar_enable 1`: NVIDIA's field is sharp_enabled
            out.append(ParseIssue(code="SYS002", source=opt.source, message=(
                f"`{key}` is not an option of OpenSM or NVIDIA's OpenSM (did you mean NVIDIA's `{nvidia[0]}`?): "
                f"OpenSM logs `Unrecognized token` and ignores the line, so `{nvidia[0]}` stays at its default")))
        elif plain.startswith("qos_"):
            # near no option, but in the QoS namespace, whose every name OpenSM's table lists (NVIDIA's adds only the
            # sw2sw set, in NVIDIA_KNOWN): a QoS setting meant and not made, whatever it was
            out.append(ParseIssue(code="SYS002", source=opt.source, message=(
                f"`{key}` is not an OpenSM QoS option (OpenSM reads `qos`, `qos_policy_file` and max_vls, "
                f"high_limit, vlarb_high, vlarb_low and sl2vl under qos_, qos_ca_, qos_sw0_, qos_swe_ and "
                f"qos_rtr_): OpenSM logs `Unrecognized token` and ignores the line; write the option meant")))
        else:
            # any other name is no option of either table (KNOWN, NVIDIA_FIELDS): named as passed over, with the
            # option it is near (`partition_config` for partition_config_file)
            out.append(_passed_over(key, opt, next(iter(difflib.get_close_matches(plain, _ALL_NAMES, 1, _NEAR)), None)))
    return out


_ALL_NAMES = sorted(KNOWN | NVIDIA_FIELDS)  # (what an unknown name is looked up near)


def _passed_over(key: str, opt: Option, near: str | None) -> ParseIssue:
    return ParseIssue(code="SYS002", source=opt.source, message=(
        f"`{key}` is not an option of OpenSM or NVIDIA's OpenSM (osm_subnet.c, osm_subnet.h)"
        + (f" (did you mean `{near}`?)" if near else "") + ": OpenSM logs `Unrecognized token` and ignores the line, "
        "so it sets nothing"))


# How alike a name must be to one of NVIDIA_KNOWN to read as its misspelling: `sharp_enable` (0.96 to sharp_enabled),
# not `ar_enable` (0.5 to ar_mode).
_NEAR_NVIDIA = 0.9


def _unprefixed(key: str) -> str | None:
    """The one option the model reads whose name ends in ``key`` after its first words, when no other OpenSM option
    (upstream's or a known NVIDIA one) does: `priority` for `sm_priority`, as AI-fabric guides write an HA pair's
    opensm.conf (audit round 10)."""
    tails = [o for o in KNOWN | NVIDIA_KNOWN if o.endswith("_" + key)]
    return tails[0] if len(tails) == 1 and tails[0] in _TYPES else None


# Words a guide adds to a boolean option's name (`enable_qos yes` for `qos TRUE`, audit round 12): OpenSM's boolean
# options carry none of them (osm_subnet.c opt_tbl: `qos`, `connect_roots`, `ignore_other_sm`, `sm_inactive`).
_SWITCH_WORDS = lazy(r"^(?:enable_|use_)|_(?:enable|enabled|on)$")


def _switch_word(key: str) -> str | None:
    """The boolean option the model reads whose name ``key`` is with an on/off word added (`enable_qos`, `use_qos`,
    `qos_enabled` for `qos`)."""
    bare = _SWITCH_WORDS.sub("", key, count=1)
    return bare if bare != key and _TYPES.get(bare) == "bool" else None


def _abbreviated(key: str) -> str | None:
    """The option the model reads whose name ``key`` spells out word by word (`max_operational_vls` for
    `max_op_vls`, as an NVIDIA opensm.conf recipe wrote it before its next revision wrote `max_op_vls 2`)."""
    words = key.split("_")
    for option in _TYPES:
        parts = option.split("_")
        if option != key and len(parts) == len(words) and all(
                w.startswith(p) for w, p in zip(words, parts, strict=True)):
            return option
    return None


def _without(option: str) -> str:
    """What OpenSM uses when ``option``'s line is not read (man opensm, QOS CONFIGURATION; osm_qos.c)."""
    if not option.startswith("qos"):
        if option not in DEFAULTS:
            return f"`{option}` stays unset"
        value = DEFAULTS[option]
        shown = ("TRUE" if value else "FALSE") if isinstance(value, bool) else hex(value) if value > 0xFFFF else value
        return f"OpenSM keeps its built-in `{option} {shown}`"
    if option == "qos":
        return "QoS stays off (OpenSM's default)"
    if option == "qos_policy_file":
        return "OpenSM looks for its default QoS policy file"
    kind = option.split("_")[1]
    if kind in QOS_TYPES:
        field = option.split("_", 2)[2]
        return f"the {kind} ports take qos_{field} or OpenSM's built-in {field}"
    return f"ports without a qos_<type>_{option[4:]} take OpenSM's built-in {option[4:]}"


def build(options: dict[str, Option]) -> tuple[OpenSm, list[ParseIssue]]:
    """The OpenSm model of one opensm.conf (QoS policy, partitions and ibdiagnet are added by the caller)."""
    b = _Builder(options)
    b.issues += misspelled_options(options)
    b.assigned_lines()
    engines = (b.get("routing_engine") or "").replace(",", " ").split()  # (osm_opensm.c: strtok_r on ", \t\n")
    unknown = [e for e in engines if e != "no_fallback" and e not in ROUTING_ENGINES]
    if unknown:
        b.issue("routing_engine", f"routing_engine lists {', '.join(repr(e) for e in unknown)}, which OpenSM does not "
                f"know (engine names are exact, case included): it logs \"cannot find or setup routing engine\" and "
                f"skips {'it' if len(unknown) == 1 else 'them'}, so the next listed engine is tried first")
    sm = OpenSm(
        routing_engines=[e for e in engines if e in ROUTING_ENGINES],
        no_fallback="no_fallback" in engines,  # man opensm -R: minhop is tried last unless 'no_fallback' is listed
        sm_priority=b.get("sm_priority"), sweep_interval_s=b.get("sweep_interval"),
        transaction_timeout_ms=b.get("transaction_timeout"), transaction_retries=b.get("transaction_retries"),
        lmc=b.get("lmc"), max_op_vls=b.get("max_op_vls"), qos_enabled=b.get("qos"),
        sm_sl=b.get("sm_sl"), lash_start_vl=b.get("lash_start_vl"), connect_roots=b.get("connect_roots"),
        max_reverse_hops=b.get("max_reverse_hops"), root_guid_file=b.get("root_guid_file"),
        ignore_other_sm=b.get("ignore_other_sm"), sm_inactive=b.get("sm_inactive"),
        subnet_prefix=b.get("subnet_prefix"), guid=b.get("guid"),
        qos_policy_file=b.get("qos_policy_file"), partition_config_file=b.get("partition_config_file"),
        qos_sets={t: _qos_set(b, f"qos_{t}") for t in QOS_TYPES} | (
            {SW2SW: _qos_set(b, f"qos_{SW2SW}", "qos_swe")} if any(k.startswith(f"qos_{SW2SW}_") for k in options)
            else {}),
        sources={k: o.source for k, o in options.items() if k in _TYPES},
    )
    return sm, b.issues


def _qos_set(b: _Builder, prefix: str, *between: str) -> IbQosSet:
    """osm_qos.c qos_build_config: the set's own option, else those of the sets ``between`` (NVIDIA's sw2sw set falls
    back on qos_swe_), else the qos_ default set's, else built in.

    Unset in the file is max_vls 0, high_limit < 0, a table `(null)`; with QoS on OpenSM also
    treats max_vls above 15 and high_limit above 255 as unset (osm_subnet.c subn_verify_qos_set)."""
    out: dict[str, object] = {}
    for field in _QOS_FIELDS:
        for key in (f"{prefix}_{field}", *(f"{p}_{field}" for p in between), f"qos_{field}", None):
            if key is None:
                out[field], source = _qos_value(field, QOS_DEFAULTS[field], b, None), None
                break
            if key not in b.options:
                continue
            raw = b.get(key)
            if raw is None or field == "max_vls" and not 0 < raw <= 15 or field == "high_limit" and not 0 <= raw <= 255:
                continue
            if key not in b.tables:  # the qos_ set serves all four port types: read (and report) it once
                b.tables[key] = _qos_value(field, raw, b, key)
            out[field], source = b.tables[key], b.options[key].source
            if out[field] == _qos_value(field, QOS_DEFAULTS[field], b, None):
                source = None  # OpenSM's built-in table, written out as `opensm -c` does: not a setting of its own
            break
        if field in ("vlarb_high", "vlarb_low", "sl2vl"):
            out[f"{field}_source"] = source
    return IbQosSet(**out)


def _qos_value(field: str, raw, b: _Builder, key: str | None):
    if field in ("max_vls", "high_limit"):
        return int(raw)
    if field == "sl2vl":
        return _sl2vl(raw, b, key)
    return _vlarb(raw, b, key)


def _entries(text: str) -> list[str]:
    """A comma list's entries, a trailing comma ending it: linux-rdma opensm osm_subnet.c subn_verify_sl2vl and
    subn_verify_vlarb split on "," with strtok_r (no empty entry), osm_qos.c qos_build_config's strtoul stops at the
    end (doc/qos-config.txt's own example writes `qos_ca_sl2vl 0,1,2,3,5,5,5,12,12,0,`). An empty entry between two
    commas is read as OpenSM's parse reads it (VL 0 in its place), and said."""
    toks = text.split(",")
    return toks[:-1] if len(toks) > 1 and not toks[-1].strip() else toks


def _sl2vl(text: str, b: _Builder, key: str | None) -> list[int]:
    """SL2VL template: VLs for SL 0..15 (man opensm: 'a list of VLs corresponding to SLs 0-15')."""
    vls = []
    for tok in _entries(text):
        vl, clean = c_number(tok.strip(), 32, False)
        if not clean or vl > 15:
            b.issue(key, f"{key}: {tok.strip()!r} is not a VL 0-15")
        vls.append(vl)
    if len(vls) != 16:
        # osm_subnet.c subn_verify_sl2vl warns; osm_qos.c reads missing entries as VL 0, extra ones are dropped
        b.issue(key, f"{key} lists {len(vls)} VLs, not one per SL 0-15; OpenSM maps missing SLs to VL 0 "
                     "and drops extra entries")
        vls = (vls + [0] * 16)[:16]
    return vls


def _vlarb(text: str, b: _Builder, key: str | None) -> list[tuple[int, int]]:
    """VL arbitration template: VL:weight pairs, VL 0-14, weight 0-255 (QoS_management_in_OpenSM.txt, 7)."""
    pairs = []
    for tok in _entries(text):
        vl_text, sep, weight_text = tok.strip().partition(":")
        vl, vl_ok = c_number(vl_text, 32, False)
        weight, weight_ok = c_number(weight_text, 32, False)
        if not (sep and vl_ok and weight_ok) or weight > 255:
            b.issue(key, f"{key}: {tok.strip()!r} is not a VL:weight pair with weight 0-255")
            continue
        pairs.append((vl, weight))
    return pairs[:64]  # two blocks of 32 entries (osm_qos.c, IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK)
