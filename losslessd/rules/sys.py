"""SYS: inputs that could not be read or fully understood. Reported, never a crash or a silent pass."""

from __future__ import annotations

from ..lint.finding import Severity
from ..lint.registry import Rule, register


class _IssueRule(Rule):
    scope = "device"

    def check(self, ctx):
        for issue in ctx.fabric.issues:
            if issue.code == self.code:
                yield self.finding(issue.message, source=issue.source, key=(issue.source.describe() if issue.source else ""))

    def check_device(self, ctx, device):
        for n, issue in enumerate(device.issues):
            if issue.code == self.code:
                if issue.source is not None:
                    device.locate(issue.source)  # its line is part of the key
                yield self.finding(issue.message, device=device, source=issue.source or device.source,
                                   key=f"{issue.source.describe() if issue.source else ''}#{n}")


@register
class InputUnreadable(_IssueRule):
    """An input file gave no device: unreadable, malformed, or of an unknown format.

    ## What it checks
    Every file or folder given to `lint` is read and parsed into a device.

    ## Why it matters
    A device that is silently skipped is a device whose lossless settings nobody checked.

    ## Failing example
    A `config_db.json` with a missing comma: `SYS001 invalid JSON: Expecting ',' delimiter (line 12)`.

    ## Passing example
    Every file parses; no SYS001 finding.

    ## Fix
    Repair or re-collect the file the message names (file and line are given), or pass
    `--format` when the platform cannot be told from the content.
    """

    code = "SYS001"
    name = "input-unreadable"
    scope = "fabric"
    severity = Severity.error

    def check(self, ctx):
        yield from _IssueRule.check(self, ctx)
        for device in ctx.fabric.devices.values():
            yield from _IssueRule.check_device(self, ctx, device)


@register
class PartialParse(_IssueRule):
    """Part of a device file was not understood and was skipped.

    ## What it checks
    Lines, tables or values a parser recognised as QoS-relevant but could not read (a truncated
    block, a malformed map entry, a number that is not a number).

    ## Why it matters
    The rest of the device is still checked, but conclusions about the skipped part are missing.

    ## Failing example
    `pfc_enable: "3,x"` in PORT_QOS_MAP: the priority list cannot be read.

    ## Passing example
    `pfc_enable: "3,4"`.

    ## Fix
    Correct the value at the file and line (or JSON path) given.
    """

    code = "SYS002"
    name = "partial-parse"
    severity = Severity.warning


@register
class UnknownUnit(_IssueRule):
    """A value is written in a unit losslessd does not know or cannot convert here.

    ## What it checks
    Thresholds and timers whose unit is unknown (`5 furlongs`), or that cannot be converted to bytes
    without a fact the input lacks (EOS `segments` without a cell size, `milliseconds` without the
    port speed).

    ## Why it matters
    An unconverted threshold cannot be compared with PFC xoff points or policy ranges.

    ## Failing example
    `random-detect ecn minimum-threshold 320 segments ...` on a platform whose segment size is unknown.

    ## Passing example
    `random-detect ecn minimum-threshold 320 kbytes maximum-threshold 1 mbytes`.

    ## Fix
    Write the threshold in bytes/kbytes/mbytes, or configure the port speed so time units convert.
    """

    code = "SYS003"
    name = "unknown-unit"
    severity = Severity.warning


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
