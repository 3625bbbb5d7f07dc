"""NVIDIA Onyx (MLNX-OS) `show running-config`: RoCE mode, global and per-port PFC, trust, ECN and ETS per
traffic class, traffic pools.

Onyx prints its running-config flat, one command a line, under `##` section comments
(`interface ethernet 1/1 qos trust L3`), after a header naming the database, the host and the release.
The configuration may also come inside a losslessd capture (docs/capture-format.md).
"""

from __future__ import annotations

import re

from ...errors import InputError
from ...lazyre import lazy
from ...model import Device
from ..base import Input, capture_inputs, sniff_text

PLATFORM = "nvidia_onyx"

# The header `show running-config` prints (`## Running database "initial"`, `## Active saved database ...`) and the
# line every Onyx running-config replays first (`no cli default prefix-modes enable`: the commands below are
# flat, not in prefix modes).
_HEADER = lazy(r'^## (Running|Active saved) database "', re.M)
_PREFIX_MODES = lazy(r"^no cli default prefix-modes enable[ \t]*\r?$", re.M)
# An Ethernet port and an Onyx-only QoS command on one line (Onyx User Manual: `interface ethernet <slot>/<port>`
# with the command after it in flat form; EOS and NX-OS put sub-commands on their own indented lines, and neither
# has `dcb priority-flow-control mode`, `traffic-class N congestion-control` or `qos trust L2|L3|both`).
# The same command indented below an `interface ethernet 1/1` line of its own (the indented form: parse/onyx/reader),
# after up to 16 other indented lines of the block (`speed 100G force`, `description ...`). Each skipped line is its
# indent and a word, one way only, so a line that fails is not tried again split otherwise (linear, not exponential).
# `int eth` as Onyx takes it (reader._spelled).
_FLAT_QOS = lazy(r"^[ \t]*int(?:erface)? eth(?:ernet)? \d+/\d+(?:/\d+)?(?:-\d+/\d+(?:/\d+)?)?"
                       r"(?: |[ \t]*\r?\n(?:[ \t]+[^ \t\n][^\n]*\n){0,16}?[ \t]+)"
                       r"(dcb priority-flow-control mode |traffic-class \d congestion-control |"
                       r"qos trust (L2|L3|both)\b)", re.M)
# A global PFC line at the margin (Onyx User Manual, PFC: `[no] dcb priority-flow-control enable [force]` and `[no] dcb
# priority-flow-control priority N enable`, configuration mode): no other platform losslessd reads has the command (EOS,
# NX-OS and OS10 write `priority-flow-control`, OS9 `pfc`, iproute2 `dcb pfc`), so a command script of the global lines
# beside port lines that are no sign (`interface ethernet 1/5 traffic-class 1 bind switch-priority 3`) is Onyx's.
_GLOBAL_PFC = lazy(r"^(?:no )?dcb priority-flow-control (?:enable\b|priority \d enable\b)", re.M)
_RUNNING_CONFIG = lazy(r"^(?:sh|sho|show)\s+run(?:ning-config)?\s*$")
_SHOW_ROCE = lazy(r"^show\s+roce\s*$")


# A configuration-mode session with Onyx's prompts (`switch (config) # interface ethernet 1/1 ...`, a space each side
# of the `#`; EOS, NX-OS and OS10 print `switch(config)#`), at a command that is a sign of Onyx as a bare line is
# (reader._ONYX_LINE, the lines check_config_text then asks for: a port, a global PFC line, `roce`, a traffic pool, the
# prefix-mode line; `int` as Onyx takes it), or in a port's sub-mode at one of _FLAT_QOS's Onyx-only QoS commands (the
# flat line `interface ethernet 1/1 qos trust L3` typed as `(config interface ethernet 1/1) # qos trust L3`).
_PROMPT = r"^[ \t]*(?:\S+[ \t]+)?(?:\[[^\]\n]{0,128}\][ \t]+)?\(config"
_SESSION = lazy(_PROMPT + r"(?: [^)\n]{0,256})?\)[ \t]+#[ \t]"
                      r"(?:int(?:erface)? ethernet \d|(?:no )?dcb priority-flow-control |traffic pool |(?:no )?roce\b|"
                      r"no cli default prefix-modes enable)", re.M)
_SESSION_PORT = lazy(_PROMPT + r" interface ethernet \d+/\d+[^)\n]{0,64}\)[ \t]+#[ \t]"
                           r"(?:dcb priority-flow-control mode |traffic-class \d congestion-control |"
                           r"qos trust (?:L2|L3|both)\b)", re.M)


def sniff(inp: Input) -> bool:
    """An Onyx capture, the running-config header, a flat `interface ethernet 1/1 <QoS command>` line, a global
    `dcb priority-flow-control` line, or a configuration-mode session with Onyx's prompts."""
    return sniff_text(inp, PLATFORM, _HEADER, _PREFIX_MODES, _FLAT_QOS, _SESSION, _SESSION_PORT, _GLOBAL_PFC)


def parse(inputs: list[Input], name: str) -> Device:
    from .build import build  # the reader and builder: when parsing, not when sniffing other platforms' files
    from .reader import read, read_show_roce

    configs, captured, extra = capture_inputs(inputs, PLATFORM, _RUNNING_CONFIG, "show running-config",
                                              {"roce": _SHOW_ROCE})
    if not configs:
        raise InputError("no Onyx running-config in the input", file=inputs[0].path, line=1)
    cfg = read(configs)
    for path, found, _ in extra:  # (each capture's last `show roce`; a later capture's wins)
        if "roce" in found:
            cfg.shown = read_show_roce(found["roce"].output, path, found["roce"].line) or cfg.shown
    return build(cfg, PLATFORM, captured or name, inputs[0].path)
