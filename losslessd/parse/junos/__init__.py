"""Juniper Junos (QFX) configuration in `show configuration | display set` form: the RoCE part of class-of-service.

A port's lossless setup is spread over named objects that `set class-of-service interfaces IF ...`
ties together: a DSCP classifier (DSCP -> forwarding class), the forwarding class's queue and
PFC priority, a congestion notification profile (PFC code points, PFC watchdog), and a
scheduler-map (forwarding class -> scheduler: strict priority or weight, ECN drop profile).
Junos ECN thresholds are fill levels in percent of the queue's buffer: bytes when the scheduler gives
that buffer as `buffer-size temporal` (line rate x time) and the port's speed is known, else kept
as Ecn.unconverted.

The curly-brace form (`show configuration`) is read too, each statement at the line of its `;`.
The configuration may also come inside a losslessd capture (docs/capture-format.md).
"""

from __future__ import annotations

import re

from ...lazyre import lazy
from ...model import Device, ParseIssue
from ..base import VERSION, Input, IssueList, capture_inputs, captured_model, sniff_text

PLATFORM = "juniper_junos"

# The hierarchies a lintable configuration has, as `display set` prints them (a file of other `set` lines,
# e.g. only `set system ...`, has no port to check and is left unclaimed), also inside a configuration group (`set
# groups G class-of-service ...`: a file of a group's statements and the `set apply-groups G` that applies them, Junos
# "Configuration Groups"; batfish's `juniper-class-of-service` test config is one such file).
_SET_LINE = lazy(r"^set (groups \S+ )?(interfaces|class-of-service) \S", re.MULTILINE)
# The curly-brace form (`show configuration`): the same hierarchies opening a block, also after the `*/` that closes a
# comment on that line (reader._BRACE_TOP).
_BRACES = lazy(r"^(?:[^\n]*\*/[ \t]*)?(interfaces|class-of-service) \{\s*$", re.MULTILINE)
# A configuration-mode session at those hierarchies, as Juniper's guides print it: the banner naming the level before
# the prompt (`[edit class-of-service]`), a `set` or `edit` typed at a configuration-mode prompt (`user@switch# set
# class-of-service ...`), or an `edit` line of a command script (read: reader._Session).
_SESSION = lazy(r"^(?:(?:\{[^{}\s]*\})?\[edit\s+|[^\s@]+@[^\s>#%]+#\s+(?:set|edit)\s+|edit\s+)"
                r"(?:groups\s+\S+\s+)?(?:interfaces|class-of-service)\b", re.MULTILINE)
# The header RANCID's `juniper` device type writes first (`#RANCID-CONTENT-TYPE: juniper`, rancid's junos.pm init): a
# saved Junos configuration even when it has no interface hierarchy (a routing-only or management device).
_RANCID = lazy(r"^# ?RANCID-CONTENT-TYPE: juniper[ \t]*\r?$", re.MULTILINE)
_CONFIG_COMMAND = lazy(r"^show\s+conf\w*(\s+class-of-service|\s+interfaces)?(\s*\|\s*display\s+set)?\s*$")


def sniff(inp: Input) -> bool:
    """A Junos capture, or `set interfaces` / `set class-of-service` lines, their curly-brace form, or a
    configuration-mode session setting them, or RANCID's header of a Junos configuration."""
    return sniff_text(inp, PLATFORM, _SET_LINE, _BRACES, _SESSION, _RANCID)


def parse(inputs: list[Input], name: str) -> Device:
    from .build import build  # the reader and builder: when parsing, not when sniffing other platforms' files
    from .reader import read

    # Several sections (whole configuration, or class-of-service and interfaces apart) are read together.
    configs, captured, found = capture_inputs(inputs, PLATFORM, _CONFIG_COMMAND, "show configuration | display set",
                                              VERSION)
    name = captured or name
    issues: list[ParseIssue] = IssueList()
    cfg = read(configs, issues)
    device = build(cfg, PLATFORM, name, inputs[0].path, issues)
    device.hardware, device.hardware_source = captured_model(inputs, PLATFORM, MODEL, found) or (None, None)
    return device


# `show version`: "Model: qfx5120-48y-8c".
# (`tune` reads the model with it from the `show version` it runs beside the configuration.)
MODEL = lazy(r"^Model:\s*(\S+)", re.MULTILINE)
