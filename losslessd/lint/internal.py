"""SYS900: the rule a crashing rule is reported under.

The engine's crash guard (lint.engine) turns a rule that raises into a finding of this rule, so one bug
never stops the rest of a lint run and never reads as a clean result. It belongs to the engine, not to a
rule family: it checks nothing itself. Its code stays in the SYS family, beside the input rules.
"""

from __future__ import annotations

from .finding import Severity
from .registry import Rule, register


@register
class InternalError(Rule):
    """A rule failed on a device because of a bug in losslessd.

    ## What it checks
    Nothing: the engine reports a rule that raised instead of returning findings, so one bug never
    stops the rest of the lint run.

    ## Why it matters
    The rule's conclusion for that device is missing.

    ## Failing example
    `SYS900 rule ECN005 (ecn-before-pfc) failed: ZeroDivisionError ...`.

    ## Passing example
    No SYS900 finding.

    ## Fix
    Report it with the input file; meanwhile `--ignore` the failing rule.
    """

    code = "SYS900"
    name = "internal-error"
    scope = "fabric"
    severity = Severity.error

    def check(self, ctx):
        return iter(())
