"""The credit-loop verdict of a saved ibdiagnet run (ibdiagnet.log, ibdiagnet2.log or its console output).

`ibdiagnet -r` checks the routing for credit loops with ibdm's CrdLoopAnalyze (ibutils
ibdm/CredLoops.cpp), which prints `-I- Analyzing Fabric for Credit Loops <n> SLs, <m> VLs used.`,
then `-I- no credit loops found`, or `Found credit loop on: <port> VL: <vl>` followed by
`  - BT credit loop through: <port> VL: <vl>` lines and `-E- credit loops in routing`. Older
ibdm builds print `-I- No credit loops found.` / `-E- Found:<n> Credit Loops`, and the up/down
check `-E- Found:<n> CA to CA paths that can cause credit loops.`. The verdict is read, not re-derived.
"""

from __future__ import annotations

import re

from ...lazyre import lazy
from ...model import IbCreditLoops, Source

_ANALYZING = lazy(r"Analyzing Fabric for Credit Loops\s+(\d{1,9})\s+SLs,\s+(\d{1,9})\s+VLs used", re.I | re.ASCII)
_CLEAN = lazy(r"\bno credit loops found\b", re.I)
_LOOP = lazy(r"^\s*(Found credit loop on:|-\s*BT credit loop through:)|^-E-.*credit loop", re.I)
EVIDENCE_LINES = 20  # a loop report can list thousands of ports; the first ones show the cycle


_LOG_LINE = lazy(r"^-[IEW]- ", re.M)


def is_ibdiagnet(text: str) -> bool:
    """ibdiagnet's `-I-`/`-E-` message lines, or its credit-loop report."""
    head = text[:65536]
    return bool(_ANALYZING.search(head) or _CLEAN.search(head)
                or "ibdiagnet" in head.lower() and _LOG_LINE.search(head))


def read(text: str, path: str) -> IbCreditLoops:
    verdict = IbCreditLoops(source=Source(file=path))
    clean_line = None
    for n, line in enumerate(text.split("\n"), 1):
        line = line.rstrip()
        if m := _ANALYZING.search(line):
            verdict.sls, verdict.vls = int(m.group(1)), int(m.group(2))
            verdict.source = Source(file=path, line=n)
        if _LOOP.search(line):
            if not verdict.loops_found:
                verdict.loops_found, verdict.source = True, Source(file=path, line=n)
            if len(verdict.evidence) < EVIDENCE_LINES:
                verdict.evidence.append(line.strip())
        elif _CLEAN.search(line) and clean_line is None:
            clean_line = n
    if not verdict.loops_found and clean_line is not None:
        verdict.loops_found, verdict.source = False, Source(file=path, line=clean_line)
    return verdict
