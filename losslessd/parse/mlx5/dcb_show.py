"""iproute2 `dcb pfc|ets|app|buffer show dev IF` output -> the NIC's PFC, ETS, DSCP map, trust and receive buffers.

dcb(8) reads a port's DCB state from the kernel (DCB netlink), whatever the driver (mlx5, Intel ice, Broadcom bnxt_en):
the vendor-neutral counterpart of `mlnx_qos -i IF`. Each line is a parameter name then its values, an array as
KEY:VALUE items (dcb(8), "ARRAY PARAMETERS"), in the layouts the man pages show:
- dcb-pfc(8): `pfc-cap 8 macsec-bypass off delay 4096`, `prio-pfc 0:off ... 7:on` (`requests` / `indications` with -s);
- dcb-ets(8): `willing on ets-cap 8 cbs off`, `tc-bw 0:33 ...`, `pg-bw ...`, `tc-tsa 0:ets ... 7:strict`,
  `prio-tc 0:0 ...` and the `reco-` recommendations offered to a peer (not the port's own);
- dcb-app(8): one line per selector, `dscp-prio 0:0 CS3:2 CS3:3 CS6:6` (a DSCP named from /etc/iproute2/rt_dsfield
  unless -N), `pcp-prio 1nd:1`, `default-prio 3`; an empty table prints nothing;
- dcb-buffer(8): `prio-buffer 0:0 ...`, `buffer-size 0:10Kb ... 6:1Mb`, `total-size 1222Kb`.
With -j (iproute2 dcb/dcb_pfc.c, dcb_ets.c, dcb_buffer.c: print_uint/print_on_off and dcb_print_named_array) each
prints one JSON object whose arrays hold the values in key order: {"pfc_cap": 8, "prio_pfc": [false, ...], "tc_tsa":
["ets", ...], "prio_tc": [0, ...]}, {"prio_buffer": [0, ...], "buffer_size": [131072, ...], "total_size": N} (sizes
in bytes: lib/json_print_math.c print_color_size prints JSON's as a number); dcb_app.c dcb_app_print_filtered one
array per entry, {"dscp_prio": [[26, 3], ...]} (the DSCP a number, as -N; iproute2 6.5 on, commit a245bfe1, each entry
ends in a string " ": [26, 3, " "]), an empty table {}.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

from ...capture import Section
from ...docpos import json_value
from ...lazyre import lazy
from ...model import ParseIssue, Port, PriorityGroup, Queue, Scheduler, SchedulerType, Trust
from ...units import DSCP_NAMES, is_small_int
from ..base import line_source

# dcb-ets(8) TSA keywords; `cbs` (credit-based shaper) has no counterpart in the model's scheduler types.
TSA = {"strict": SchedulerType.strict, "ets": SchedulerType.ets, "vendor": SchedulerType.vendor}
# iproute2 lib/json_print_math.c sprint_size, as tc(8) prints sizes: "%ub" bytes, "%gKb" within 16 bytes of a whole
# number of KiB, "%gMb" within 1 KiB of a whole number of MiB (the size is rounded to that unit).
_SIZE = lazy(r"([0-9]{1,10})(b|Kb|Mb)")
_SIZE_UNITS = {"b": 1, "Kb": 1024, "Mb": 1024 * 1024}
# Lines read but holding nothing the model keeps: capabilities, counters, the peer recommendations, CEE's pg-bw,
# the app table's other selectors and the buffers' total.
_PASSED = frozenset({"requests", "indications", "pg-bw", "reco-tc-bw", "reco-tc-tsa", "reco-prio-tc", "ethtype-prio",
                     "stream-port-prio", "dgram-port-prio", "port-prio", "pcp-prio", "default-prio", "total-size"})
_HEADS = ("pfc-cap", "macsec-bypass", "delay", "willing", "ets-cap", "cbs")  # (words of the `key value` head lines)
# The array lines, one per parameter; what each sets.
_ARRAYS = frozenset({"prio-pfc", "tc-bw", "tc-tsa", "prio-tc", "dscp-prio", "prio-buffer", "buffer-size"})
_JSON_ARRAYS = frozenset({"prio-pfc", "tc-bw", "tc-tsa", "prio-tc", "prio-buffer"})  # (values in key order)
# A line of dcb show output: a parameter of one of the four objects, then its values (what sniffing looks for).
SHOW_LINE = lazy(r"^(?:(?:prio-pfc|tc-tsa|prio-tc|dscp-prio|prio-buffer|buffer-size)(?:[ \t]+[^\s:]+:\S+)+"
                       r"|pfc-cap [0-9]+ macsec-bypass (?:on|off) delay [0-9]+)[ \t\r]*$", re.M)
# A DSCP name in dscp-prio (iproute2 dcb_app.c dcb_app_print_key_dscp prints rtnl_dsfield_get_name(DSCP << 2), the
# host's /etc/iproute2/rt_dsfield name, unless -N): a word of the file's names (rt_names.c reads each as a word).
_SITE_NAME = lazy(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
# What `dcb buffer show` prints where the driver has no DCB buffer operations (Intel ice, Broadcom bnxt_en): Linux
# net/dcb/dcbnl.c dcbnl_ieee_fill puts DCB_ATTR_DCB_BUFFER only with ops->dcbnl_getbuffer, and iproute2 dcb/dcb.c
# __dcb_get_attribute then calls perror("Attribute not found") (what follows the colon is whatever errno held).
_NO_BUFFERS = lazy(r"Attribute not found(?:: [^\n]{0,80})?")
_V = TypeVar("_V")


class _Facts:
    def __init__(self) -> None:
        self.arrays: dict[str, tuple[list[tuple[str, str]], int]] = {}  # parameter -> (KEY:VALUE items, line)
        self.bad: list[tuple[int, str]] = []
        self.lines = 0


def apply(port: Port, section: Section, file: str) -> list[ParseIssue]:
    """Fill ``port`` from one `dcb ... show dev IF` output; SYS002 issues for what could not be read."""
    facts = _scan(section)
    issues: list[ParseIssue] = []
    port.dcb_tool = "dcb"
    if _NO_BUFFERS.fullmatch(section.output.strip()) and "buffer" in section.command.split():
        port.nic_buffers_refused = section.output.strip()  # (a driver without DCB buffer operations: ice, bnxt_en)
        return issues

    def issue(message: str, line: int, code: str = "SYS002") -> None:
        issues.append(ParseIssue(code=code, message=f"`{section.command}`: {message}", source=line_source(file, line)))

    for n, text in facts.bad[:1]:
        issue(f"{len(facts.bad)} line(s) not understood and skipped, first: {text[:80]!r}", n)
    arrays = facts.arrays
    if "prio-pfc" in arrays:
        items, n = arrays["prio-pfc"]
        on = _per_key(items, 8, {"on": True, "off": False})
        if on is None:
            issue("prio-pfc does not give on or off for each of the priorities 0-7; PFC priorities unknown", n)
        else:
            port.pfc_enabled, port.pfc_source = [p for p in range(8) if on[p]], line_source(file, n)
    tcs = _per_priority(arrays, "prio-tc", "a traffic class", "priority to TC map", issue)
    if tcs is not None:
        port.priority_to_tc, port.map_source = dict(tcs), line_source(file, arrays["prio-tc"][1])
    if "tc-tsa" in arrays:
        items, n = arrays["tc-tsa"]
        tsas = _per_key(items, 8, TSA)
        bws = _per_key(arrays["tc-bw"][0], 8, {str(v): v for v in range(101)}) if "tc-bw" in arrays else None
        if tsas is None:
            issue("tc-tsa does not give strict, ets or vendor for each traffic class; schedulers unknown", n)
        else:
            if "tc-bw" in arrays and bws is None:
                issue("tc-bw does not give a percent 0-100 for each traffic class; ETS weights unknown",
                      arrays["tc-bw"][1])
            source = line_source(file, n)
            port.queues = {tc: Queue(index=tc, scheduler=Scheduler(
                type=tsa, weight=bws[tc] if bws is not None and tsa == SchedulerType.ets else None, source=source),
                source=source) for tc, tsa in tsas.items()}
    if "dscp-prio" in arrays or (section_reads_app(section) and not facts.bad):  # (an error printed: not empty)
        _app(port, arrays.get("dscp-prio"), section, file, issue)
    buffers = _per_priority(arrays, "prio-buffer", "a buffer", "priority to buffer map", issue)
    if buffers is not None:
        port.priority_to_pg = dict(buffers)
    if "buffer-size" in arrays:
        items, n = arrays["buffer-size"]
        sizes = _sizes(items)
        if sizes is None:
            issue("buffer-size does not give a size (N b, Kb or Mb) for each of the buffers 0-7; receive buffer "
                  "sizes unknown", n)
        else:
            source = line_source(file, n)
            port.priority_groups = {i: PriorityGroup(index=i, size_bytes=size, source=source)
                                    for i, size in sizes.items()}
    if not facts.lines and not section_reads_app(section):
        issue("printed nothing; what it shows is unknown", max(section.line - 1, 1))
    return issues


def is_json_output(text: str) -> bool:
    """Whether ``text`` is one bare `dcb -j pfc|ets|app|buffer show` object: keys of those objects only (the module's
    -j layouts), one of them an array of settings. No other input is such an object (a SONiC CONFIG_DB's keys are its
    tables), so it is told apart, and refused with what to do: it names neither its command nor its interface."""
    head = text.lstrip()
    if not head.startswith("{") or len(head) > 65536:
        return False
    try:
        doc = json_value(head)
    except ValueError:
        return False
    keys = {key.replace("_", "-") for key in doc} if isinstance(doc, dict) else set()
    return bool(keys & _ARRAYS) and keys <= _ARRAYS | _PASSED | set(_HEADS)


def section_reads_app(section: Section) -> bool:
    """Whether the command shows the app table's DSCP entries (`dcb app show dev IF` whole, or its dscp-prio): an
    empty output then says the table holds none."""
    words = section.command.split()
    if "app" not in words or "dev" not in words:
        return False
    shown = words[words.index("dev") + 2:]
    return not shown or "dscp-prio" in shown


def _app(port: Port, dscp: tuple[list[tuple[str, str]], int] | None, section: Section, file: str, issue) -> None:
    """The app table's DSCP entries: the DSCP -> priority map, and the trust. mlx5 trusts DSCP exactly while its app
    table holds DSCP entries (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c: mlx5e_dcbnl_ieee_setapp switches the
    trust to DSCP at the first entry, mlx5e_dcbnl_ieee_delapp back to PCP with the last gone, and setting the trust to
    DSCP otherwise adds the 64 default entries, mlx5e_dcbnl_dscp_app)."""
    line = dscp[1] if dscp else max(section.line - 1, 1)
    mapping: dict[int, int] = {}
    site_names: list[str] = []
    for key, value in dscp[0] if dscp else []:
        number = dscp_number(key)
        if number is None and _SITE_NAME.fullmatch(key) and is_small_int(value, 1) and int(value) <= 7:
            site_names.append(key)  # (a name this host's rt_dsfield gives some DSCP: which one, the input does not say)
            continue
        if number is None or not is_small_int(value, 1) or int(value) > 7:
            issue(f"dscp-prio entry {key}:{value} is not DSCP:PRIORITY (a DSCP 0-63 or its name, a priority 0-7); "
                  "DSCP to priority map unknown", line)
            return
        if number in mapping and mapping[number] != int(value):
            issue(f"DSCP {number} is given priorities {mapping[number]} and {value} (two app entries); which one the "
                  "NIC applies is the driver's: DSCP to priority map unknown", line)
            port.trust, port.trust_source = Trust.dscp, line_source(file, line)  # (entries there are)
            return
        mapping[number] = int(value)
    if site_names:
        issue(f"dscp-prio names {len(site_names)} DSCP(s) by a name of this host's /etc/iproute2/rt_dsfield, not one "
              f"RFC 2474/2597/3246 fixes ({', '.join(site_names[:3])[:80]}): which DSCPs they stand for is unknown, "
              "and so is the priority of every DSCP not shown by number or RFC name; capture `dcb -N app show` "
              "(dcb(8) -N: numbers)", line, code="SYS004")
    source = line_source(file, line)
    port.trust, port.trust_source = (Trust.dscp if mapping or site_names else Trust.pcp), source
    if mapping:
        port.dscp_to_priority, port.map_source = dict(sorted(mapping.items())), source
        port.dscp_to_priority_partial = len(mapping) < 64 or bool(site_names)


def dscp_number(key: str) -> int | None:
    """A DSCP 0-63 written as a number or its name (`AF31`, `CS6`, `EF`: dcb-app(8) prints and takes them unless -N);
    None for anything else."""
    if is_small_int(key, 2) and int(key) <= 63:
        return int(key)
    return DSCP_NAMES.get(key.lower())


def _per_priority(arrays: dict, key: str, value: str, what: str,
                  issue: Callable[[str, int], None]) -> dict[int, int] | None:
    """A priority -> 0-7 array (`prio-tc`, `prio-buffer`) when the output gives it whole; else None, an issue naming
    ``what`` unknown where it gives it otherwise."""
    if key not in arrays:
        return None
    items, n = arrays[key]
    found = _per_key(items, 8, {str(v): v for v in range(8)})
    if found is None:
        issue(f"{key} does not give {value} 0-7 for each priority; {what} unknown", n)
    return found


def _per_key(items: list[tuple[str, str]], keys: int, values: dict[str, _V]) -> dict[int, _V] | None:
    """{key: value} when the items give every key 0..keys-1 one value of ``values``; else None."""
    out: dict[int, _V] = {}
    for key, raw in items:
        if not is_small_int(key, 1) or int(key) >= keys or int(key) in out or raw not in values:
            return None
        out[int(key)] = values[raw]
    return out if len(out) == keys else None


def _sizes(items: list[tuple[str, str]]) -> dict[int, int] | None:
    """Buffer sizes in bytes when the items give each buffer 0-7 one size as tc(8) prints it; else None."""
    out: dict[int, int] = {}
    for key, raw in items:
        m = _SIZE.fullmatch(raw)
        if m is None or not is_small_int(key, 1) or int(key) >= 8 or int(key) in out:
            return None
        out[int(key)] = int(m.group(1)) * _SIZE_UNITS[m.group(2)]
    return out if len(out) == 8 else None


@lru_cache(maxsize=256)  # hosts built alike print the same output: scan it once
def _scan(section: Section) -> _Facts:
    facts = _Facts()
    text = section.output.strip()
    if text.startswith("{"):
        return _scan_json(section, facts)
    for n, raw in enumerate(section.output.split("\n"), start=section.line):
        words = raw.split()
        if not words:
            continue
        facts.lines += 1
        name = words[0]
        if name in _ARRAYS or name in _PASSED:
            items = [tuple(w.split(":", 1)) for w in words[1:]]
            if name in _ARRAYS and (not items or any(len(i) != 2 for i in items)):
                facts.bad.append((n, raw.strip()))
            elif name in _ARRAYS:
                facts.arrays[name] = ([(k, v) for k, v in items], n)
        elif name in _HEADS and len(words) % 2 == 0 and all(w in _HEADS for w in words[::2]):
            continue
        else:
            facts.bad.append((n, raw.strip()))
    return facts


def _scan_json(section: Section, facts: _Facts) -> _Facts:
    """`dcb -j pfc|ets|app|buffer show dev IF`: one JSON object (see the module)."""
    try:
        doc = json_value(section.output)  # (a ValueError for nesting too deep too, not a RecursionError)
    except ValueError as exc:
        facts.bad.append((section.line, f"not JSON ({exc})"))
        return facts
    if not isinstance(doc, dict):
        facts.bad.append((section.line, "JSON that is not one object"))
        return facts
    facts.lines = len(doc)
    for key, value in doc.items():
        name = key.replace("_", "-")
        if name in _JSON_ARRAYS and isinstance(value, list):
            facts.arrays[name] = ([(str(i), _json_word(v)) for i, v in enumerate(value)], section.line)
        elif name == "buffer-size" and isinstance(value, list):  # (bytes: the size words' "b")
            facts.arrays[name] = ([(str(i), f"{_json_word(v)}b") for i, v in enumerate(value)], section.line)
        elif name == "dscp-prio" and isinstance(value, list):
            pairs = [v[:2] if isinstance(v, list) and v[2:] in ([], [" "]) else [v, "?"] for v in value]
            facts.arrays[name] = ([(_json_word(k), _json_word(p)) for k, p in pairs], section.line)
        elif name in _ARRAYS or (name not in _PASSED and name not in _HEADS):
            facts.bad.append((section.line, f"{key!r}: no parameter of dcb pfc, ets, app or buffer"))
    return facts


def _json_word(value: object) -> str:
    """A JSON array value as the text output writes it (true/false for on/off; numbers and keywords as they are; a
    list, null or an object as nothing any array takes)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value) if isinstance(value, (int, str)) else "?"
