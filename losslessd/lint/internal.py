"""SYS900: the rule a crashing rule is reported under.

The engine's crash guard (lint.engine) turns a rule that raises into a finding of this rule, and the
loader (fabric.load_fabric) a parser that raises into an issue of it, so one bug
never stops the rest of a lint run and never reads as a clean result. It belongs to the engine, not to a
rule family: it checks nothing itself. Its code stays in the SYS family, beside the input rules.
"""

from __future__ import annotations

from collections.abc import Iterator

from .engine import Context
from .finding import Finding, Severity
from .registry import Rule, register


@register
class InternalError(Rule):
    """A rule or a parser failed because of a bug in losslessd.

    ## What it checks
    Nothing: the engine reports a rule that raised instead of returning findings, and the loader a
    parser that raised instead of returning a device or an input error, so one bug never stops the
    rest of the lint run. The command then exits 3 (internal error), never 1: a crash is not a finding.

    ## Why it matters
    The rule's conclusion for that device, or the whole device, is missing.

    ## Failing example
    `SYS900 rule ECN004 (ecn-after-pfc) failed: ZeroDivisionError ...`.

    ## Passing example
    No SYS900 finding.

    ## Fix
    Report it with the input file (the message says how); meanwhile `--ignore` the failing rule.
    """

    code = "SYS900"
    name = "internal-error"
    scope = "fabric"
    severity = Severity.error

    def check(self, ctx: Context) -> Iterator[Finding]:
        """The parsers that failed on a bug (the loader's SYS900 issues); crashing rules the engine adds."""
        for issue in ctx.fabric.issues:
            if issue.code == self.code:
                yield self.finding(issue.message, source=issue.source,
                                   key=issue.source.describe() if issue.source else "")
