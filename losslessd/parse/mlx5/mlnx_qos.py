"""`mlnx_qos -i IF` output -> the NIC's trust, DSCP/priority/TC/buffer maps, PFC and schedulers.

The layout is what mlnx-tools' python/mlnx_qos pretty_print() prints (github.com/Mellanox/mlnx-tools).
Layouts differ by MLNX_OFED release; all of these are read:
- MLNX_OFED 4.x: "Priority trust state", "dscp2prio mapping" (`prio:3 dscp:31,30,...,24,`, one line
  per 8 DSCPs, so a priority can span lines), "Cable len", the PFC table with only an `enabled`
  row, then `tc: N ratelimit: ..., tsa: ets|strict|vendor[, bw: P%]` each followed by
  `priority:  P` lines (TC order as the kernel returns it, not sorted);
- later releases add "default priority:" (`prio:P` lines), "Receive buffer size (bytes): a,...,h,"
  ending in `total_size=N` (older) or `max_buffer_size=N` (newer), and a PFC `buffer` row that maps
  each priority to a receive buffer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...capture import Section
from ...lazyre import lazy
from ...model import ParseIssue, Port, PriorityGroup, Queue, Scheduler, SchedulerType, Trust
from ...units import list_items, small_int
from ..base import line_source, positional

# (re.ASCII: \d is 0-9, not other scripts' digits, which int() would read)
_TRUST = lazy(r"^Priority trust (?:state|mode):\s*(\S*)$")
_DSCP_MAP = lazy(r"^dscp2prio mapping:$")
_PRIO_DSCP = lazy(r"^prio:\s*(\d{1,3})\s+dscp:\s*([\d,\s]*)$", re.ASCII)
_DEFAULT_PRIO = lazy(r"^default priority:$")
_PRIO_ONLY = lazy(r"^prio:\s*\d{1,3}$", re.ASCII)
_BUFFER_SIZES = lazy(r"^Receive buffer size \(bytes\):\s*(.*)$")
_CABLE = lazy(r"^Cable len:\s*(\d{1,9})$", re.ASCII)
_PFC = lazy(r"^PFC configuration:$")
_ROW = lazy(r"^(priority|enabled|buffer):?((?:\s+\d{1,3}){8})$", re.ASCII)
_TC = lazy(r"^tc:\s*(\d{1,3})\s+ratelimit:\s*[^,]*,\s*tsa:\s*(\w*)(?:,\s*bw:\s*(\d{1,3})\s*%)?$", re.ASCII)
_TC_PRIORITY = lazy(r"^priority:\s*(\d{1,3})$", re.ASCII)
# Status lines mlnx_qos prints besides the configuration.
_NOISE = lazy(r"^(?:DCBX mode:.*|\*+ WARNING:.*|.*not supported on your system!?)$")
_TSA = {"ets": SchedulerType.ets, "strict": SchedulerType.strict, "vendor": SchedulerType.vendor, "unknown": None}
_TRUSTS = {"dscp": Trust.dscp, "pcp": Trust.pcp}


class _Facts:
    def __init__(self) -> None:
        self.trust: tuple[str, int] | None = None
        self.dscp_map_line: int | None = None
        self.dscp: list[tuple[int, int, int]] = []  # (dscp, priority, line)
        self.sizes: tuple[list[int], int] | None = None
        self.cable: tuple[int, int] | None = None
        self.pfc_line: int | None = None
        self.rows: dict[str, tuple[list[int], int]] = {}
        self.tcs: dict[int, tuple[SchedulerType | None, int | None, int]] = {}  # tc -> (tsa, bw, line)
        self.prio_tc: dict[int, int] = {}
        self.bad: list[tuple[int, str]] = []
        self.first: tuple[int, str] | None = None  # first non-blank line
        self.understood = 0
        # The maps, built once per distinct output and shared (read-only) by every port that printed it.
        self.dscp_to_priority: dict[int, int] | None = None
        self.dscp_conflicts: list[tuple[int, int, int, int]] = []  # (dscp, earlier priority, later priority, line)
        self.priority_to_pg: dict[int, int] | None = None
        self.priority_to_tc: dict[int, int] | None = None
        # What apply sets and says, worked out once (finish).
        self.trust_mode: Trust | None = None
        self.pfc_enabled: list[int] | None = None
        self.queues: list[tuple[int, tuple[SchedulerType | None, int | None, int]]] = []  # sorted by TC
        self.map_line: int | None = None
        self.before: list[tuple[str, int | None]] = []
        self.after: list[tuple[str, int | None]] = []
        self.dscp_unknown_line: int | None = None

    def finish(self, section: Section) -> None:
        mapping: dict[int, int] = {}
        for dscp, prio, line in self.dscp:
            if dscp in mapping and mapping[dscp] != prio:
                self.dscp_conflicts.append((dscp, mapping[dscp], prio, line))
            mapping[dscp] = prio
        self.dscp_to_priority = dict(sorted(mapping.items()))
        if "buffer" in self.rows:
            self.priority_to_pg = dict(enumerate(self.rows["buffer"][0]))
        self.priority_to_tc = dict(sorted(self.prio_tc.items())) or None
        self.trust_mode = _TRUSTS.get(self.trust[0]) if self.trust else None
        self.pfc_enabled = [prio for prio, bit in enumerate(self.rows["enabled"][0]) if bit] \
            if "enabled" in self.rows else None
        self.queues = sorted(self.tcs.items())
        self.map_line = self.dscp_map_line or min((line for _, _, line in self.tcs.values()), default=None)
        self._issues(section)

    def _issues(self, section: Section) -> None:
        """What apply says about this output, worked out once: (message, line) before and after the one issue that
        depends on the port (``dscp_unknown_line``: no DSCP map and no trust line, on a port an earlier input set
        to trust dscp)."""
        cmd = f"`{section.command}`"
        before, after = self.before, self.after

        def issue(out: list, message: str, line: int | None) -> None:
            out.append((f"{cmd}: {message}", line))

        if not self.understood:
            if self.first is None:
                issue(before, "printed nothing; trust, PFC, maps and schedulers unknown", section.line)
            else:
                issue(before, f"output not understood (first line {self.first[1][:80]!r}); trust, PFC, maps and "
                      "schedulers unknown", self.first[0])
            return
        if self.bad:
            n, text = self.bad[0]
            issue(before, f"{len(self.bad)} line(s) not understood and skipped, first: {text[:80]!r}", n)
        if self.trust is None:
            issue(before, "no 'Priority trust state' line; trust mode unknown", section.line)
        elif self.trust_mode is None:
            value, line = self.trust
            issue(before, f"trust state {value!r} (trust is not supported by this driver); trust mode unknown", line)
        if self.dscp:
            for dscp, first, prio, line in self.dscp_conflicts:
                issue(before, f"DSCP {dscp} listed for priorities {first} and {prio}; the last one is kept", line)
        elif self.trust is None:
            self.dscp_unknown_line = section.line
        elif self.trust_mode == Trust.dscp:
            issue(before, _DSCP_UNKNOWN, self.trust[1])
        if "enabled" not in self.rows:
            issue(after, "no PFC 'enabled' row; PFC priorities unknown", self.pfc_line or section.line)
        if not self.tcs:
            issue(after, "no 'tc:' lines; priority to TC map and schedulers unknown", section.line)


# PriorityGroup(index=, size_bytes=, source=) and the like without the keyword calls (parse.base.positional).
_pg = positional(PriorityGroup, "index", "size_bytes", "source")
_queue = positional(Queue, "index", "scheduler", "source")
_scheduler = positional(Scheduler, "type", "weight", "source")
_DSCP_UNKNOWN = "trust is dscp but no dscp2prio mapping is printed; DSCP to priority map unknown"


def apply(port: Port, section: Section, file: str) -> list[ParseIssue]:
    """Fill ``port`` from one mlnx_qos output; return SYS002 issues for what could not be read."""
    facts = _scan(section)
    issues = [ParseIssue(code="SYS002", message=message, source=line_source(file, line))
              for message, line in facts.before]
    if not facts.understood:
        return issues
    port.dcb_tool = "mlnx_qos"
    if facts.trust is not None:
        port.trust = facts.trust_mode
        port.trust_source = line_source(file, facts.trust[1])
    if facts.dscp:
        port.dscp_to_priority = facts.dscp_to_priority  # one read-only dict for every host that printed it
    elif facts.dscp_unknown_line is not None and port.trust == Trust.dscp:  # the trust an earlier input set
        issues.append(ParseIssue(code="SYS002", message=f"`{section.command}`: {_DSCP_UNKNOWN}",
                                 source=line_source(file, facts.dscp_unknown_line)))
    if facts.pfc_enabled is not None:
        port.pfc_enabled = list(facts.pfc_enabled)
        port.pfc_source = line_source(file, facts.rows["enabled"][1])
    if "buffer" in facts.rows:
        port.priority_to_pg = facts.priority_to_pg
    if facts.sizes is not None:
        sizes, line = facts.sizes
        source = line_source(file, line)  # one line sets every buffer: one source for all
        port.priority_groups = {i: _pg(i, size, source) for i, size in enumerate(sizes)}
    if facts.cable is not None:
        port.cable_length_m = float(facts.cable[0])  # metres: MLX5E_DEFAULT_CABLE_LEN 7 /* 7 meters */ (kernel en/port_buffer.h)

    if facts.tcs:
        port.queues = {}
        for tc, (tsa, bw, line) in facts.queues:
            source = line_source(file, line)  # the `tc:` line sets both
            port.queues[tc] = _queue(tc, _scheduler(tsa, bw, source), source)
        port.priority_to_tc = facts.priority_to_tc
    if facts.map_line is not None:
        port.map_source = line_source(file, facts.map_line)
    issues.extend(ParseIssue(code="SYS002", message=message, source=line_source(file, line))
                  for message, line in facts.after)
    return issues


@lru_cache(maxsize=256)  # hosts built alike print the same output: scan it once (apply only reads facts)
def _scan(section: Section) -> _Facts:
    facts = _Facts()
    block = None  # dscp | default | pfc | tc
    tc: int | None = None
    for n, raw in enumerate(section.output.split("\n"), start=section.line):
        line = raw.strip()
        if not line:
            continue
        facts.first = facts.first or (n, line)
        ok = True
        if m := _TRUST.match(line):
            facts.trust, block = (m.group(1), n), None
        elif _DSCP_MAP.match(line):
            facts.dscp_map_line, block = n, "dscp"
        elif (m := _PRIO_DSCP.match(line)) and block == "dscp":
            ok = _dscp_entries(facts, int(m.group(1)), m.group(2), n)
        elif _DEFAULT_PRIO.match(line):
            block = "default"
        elif _PRIO_ONLY.match(line) and block == "default":
            pass  # the default priority for untagged/unmapped traffic: not part of the model
        elif m := _BUFFER_SIZES.match(line):
            block = None
            ok = _buffer_sizes(facts, m.group(1), n)
        elif m := _CABLE.match(line):
            facts.cable, block = (int(m.group(1)), n), None
        elif _PFC.match(line):
            facts.pfc_line, block = n, "pfc"
        elif (m := _ROW.match(line)) and block == "pfc":
            ok = _row(facts, m.group(1), [int(v) for v in m.group(2).split()], n)
        elif m := _TC.match(line):
            tc, block = int(m.group(1)), "tc"
            ok = _tc(facts, tc, m.group(2), m.group(3), n)
            if not ok:
                tc = None
        elif (m := _TC_PRIORITY.match(line)) and block == "tc" and tc is not None:
            prio = int(m.group(1))
            ok = prio <= 7 and prio not in facts.prio_tc
            if ok:
                facts.prio_tc[prio] = tc
        elif _NOISE.match(line):
            continue
        else:
            ok = False
        if ok:
            facts.understood += 1
        else:
            facts.bad.append((n, line))
    facts.finish(section)
    return facts


def _dscp_entries(facts: _Facts, prio: int, values: str, n: int) -> bool:
    try:
        dscps = [small_int(v, 3) for v in list_items(values)]  # (mlnx_qos ends each list with a comma)
    except ValueError:
        return False
    if prio > 7 or not dscps or any(d > 63 for d in dscps):
        return False
    facts.dscp.extend((d, prio, n) for d in dscps)
    return True


_SIZE = lazy(r"[0-9]{1,12}")
_TOTAL_SIZE = lazy(r"(?:total_size|max_buffer_size)=[0-9]{1,12}")


def _buffer_sizes(facts: _Facts, values: str, n: int) -> bool:
    """`a,b,c,d,e,f,g,h,` optionally followed by total_size=N or max_buffer_size=N."""
    sizes = []
    for item in (v.strip() for v in values.split(",")):
        if _SIZE.fullmatch(item):
            sizes.append(int(item))
        elif item and not _TOTAL_SIZE.fullmatch(item):
            return False
    if len(sizes) != 8:
        return False
    facts.sizes = (sizes, n)
    return True


def _row(facts: _Facts, name: str, values: list[int], n: int) -> bool:
    if name == "priority":
        return values == list(range(8))
    if (name == "enabled" and any(v > 1 for v in values)) or (name == "buffer" and any(v > 7 for v in values)):
        return False
    facts.rows[name] = (values, n)
    return True


def _tc(facts: _Facts, tc: int, tsa: str, bw: str | None, n: int) -> bool:
    if tc > 7 or tc in facts.tcs or tsa not in _TSA or (bw is not None and (tsa != "ets" or int(bw) > 100)):
        return False
    facts.tcs[tc] = (_TSA[tsa], int(bw) if bw is not None else None, n)
    return True
