"""Arista EOS `show running-config` text: trust, DSCP/CoS maps, PFC, PFC watchdog, tx-queue scheduling and ECN.

Interfaces take their QoS from a `qos profile` through `service-profile`; the interface's own
lines override the profile's. What EOS does by default (DSCP map, trust, strict-priority
queues) is filled in, so each port shows its effective settings.

The running-config may also come inside a losslessd capture (docs/capture-format.md) with a
`show lldp neighbors [detail]` section, which gives the switch's LLDP neighbours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ... import capture
from ...errors import InputError
from ...lazyre import lazy
from ...model import Device
from .. import lldp
from ..base import CONFIG_PROMPT_TYPED, Input, IssueList, answered, last_sections, sniff_text

PLATFORM = "arista_eos"

_HEADER = lazy(r"^! (Command: show running-config|device: \S+ \(.*EOS-)", re.M)
# EOS indents sub-commands by three spaces (NX-OS by two, IOS by one); `interface Vxlan1` is EOS's VXLAN tunnel
# interface (EOS User Manual, "VXLAN": `interface vxlan 1`; NX-OS names its `nve1`).
_EOS_BLOCK = lazy(r"^(interface (Ethernet|Port-Channel|Management|Loopback|Vlan|Vxlan)\S*|qos profile \S+)"
                        r"\r?\n {3}\S",
                        re.M)
# NX-OS (`feature`, `version`, `!Command:` without a space), Junos (`set ...`, brace blocks; not a policy-map class's
# `set traffic-class|dscp|cos N` at the margin of an EOS paste whose indentation was lost).
# (A Junos brace block opens at the margin; EOS's indented `function NAME() {` under router general
# control-functions is EOS's own.)
_FOREIGN = lazy(r"^(feature \S|version \d|!Command:|!Time:|"
                      r"set (?!(?:traffic-class|dscp|cos|drop-precedence) \d)\S|[^!\s][^!\n]*\{[ \t]*\r?$)", re.M)
# Capture sections: EOS accepts abbreviated commands (`show run`, `sh lldp nei`).
_RUNNING_CONFIG = lazy(r"^(?:sh|sho|show)\s+run(?:ning-config)?(?:\s+all)?\s*$")
_LLDP = lazy(r"^(?:sh|sho|show)\s+lldp\s+nei\w*(?:\s+detail)?\s*$")


# A configuration-mode session with EOS's own prompts (EOS User Manual, "Command Modes"): an interface mode named by
# the port (`switch(config-if-Et5)#`; NX-OS prints `config-if`), a qos profile's mode.
_EOS_SESSION = lazy(r"^\S+\(config-(if-(Et|Po)\d|qos-profile-)", re.M)


# A paste whose indentation was lost (parse/eos/flat.py): an Ethernet port (`Ethernet1`, or `Et1/1` as EOS takes it
# typed) followed, at the margin, by a PFC or qos line only EOS writes so (`priority-flow-control on`,
# `priority-flow-control priority N no-drop`, `service-profile P`, `uc-tx-queue N`; NX-OS and OS10 write
# `priority-flow-control mode on`, Onyx `dcb priority-flow-control`).
_EOS_FLAT = lazy(r"^interface (?:Ethernet|Eth|Et) ?\d\S*[ \t]*\r?\n(?:[^\s!][^\n]{0,200}\r?\n){0,8}?"
                       r"(?:priority-flow-control (?:on|priority \d no-drop)|service-profile \S|uc-tx-queue \d)", re.M)

# The same port block printed with another indentation than EOS's three blanks (two, as pages and generators print
# it: `interface Ethernet1-48` / `  priority-flow-control on`), its EOS-only line indented like the lines above it.
_EOS_INDENTED = lazy(r"^interface (?:Ethernet|Eth|Et) ?\d\S*[ \t]*\r?\n(?:[ \t]+[^\s!][^\n]{0,200}\r?\n){0,8}?[ \t]+"
                     r"(?:priority-flow-control (?:on|priority \d no-drop)|service-profile \S+|uc-tx-queue \d+)"
                     r"[ \t]*\r?$", re.M)

# A global classification map in EOS's words (EOS User Manual, QoS: `qos map dscp|cos V... to traffic-class T`, `qos
# map traffic-class T... to tx-queue|dscp|cos N`), whole to its number: NX-OS classifies with class-maps (`match
# dscp`), OS10 names its maps `qos-map dscp-tc NAME` / `qos-map traffic-class NAME`, Onyx's map goes `to
# switch-priority`, so the line is EOS's alone.
_EOS_QOS_MAP = lazy(r"^qos map (?:(?:dscp|cos) \d[\d ,-]{0,200} to traffic-class|"
                          r"traffic-class \d[\d ,-]{0,40} to (?:tx-queue|dscp|cos)) \d", re.M)


# Whole-configuration lines only EOS writes, so a running-config with no interface block (a management or border
# switch, a routing-only part) is still told: the header RANCID's `arista` device type writes first
# (`!RANCID-CONTENT-TYPE: arista`, rancid's eos.pm init; NX-OS's is `cisco-nx`), the routing agent model (EOS User
# Manual, "service routing protocols model multi-agent|ribd") and Arista's streaming agent (`daemon TerminAttr`).
_EOS_GLOBAL = lazy(r"^(?:!RANCID-CONTENT-TYPE: arista|service routing protocols model (?:multi-agent|ribd)|"
                         r"daemon TerminAttr)[ \t]*\r?$", re.M)


def sniff(inp: Input) -> bool:
    """An EOS capture, an EOS running-config header, an interface/qos profile block indented the EOS way, a
    configuration-mode session with EOS's prompts, a paste of one with its indentation lost or changed, EOS's
    global `qos map` lines, or a line only an EOS running-config has."""
    return sniff_text(inp, PLATFORM, _HEADER, _EOS_BLOCK, _EOS_SESSION, _EOS_FLAT, _EOS_INDENTED, _EOS_QOS_MAP,
                      _EOS_GLOBAL, foreign=_FOREIGN)


# The queue block lines of a running config (three blanks in, under an interface or qos profile, as `show
# running-config` indents them; at the margin in a paste that lost its indentation, or after a session's prompt,
# `(config-qos-profile-P)#uc-tx-queue 3`): `tx-queue N` on a Sand switch, `uc-tx-queue N`/`mc-tx-queue N` on a
# Trident/Tomahawk one (Arista AVD eos_cli_config_gen schema: qos_profiles.tx_queues vs uc_tx_queues; EOS User Manual,
# QoS). (A sub-mode command: at the margin it is a paste's.)
_QUEUE_BLOCK = lazy(rf"^(?: {{3}}|{CONFIG_PROMPT_TYPED})?(uc-|mc-)?tx-queue [0-9]+[ \t]*$", re.MULTILINE)


def queue_family(texts: Iterable[str]) -> str | None:
    """The family (render.families) a running config's own queue blocks show: `tx-queue`: sand; `uc-tx-queue` or
    `mc-tx-queue`: trident-tomahawk. The switch took them, so a snippet or a put-back in the same keyword is one it
    takes too; None where the config shows none, or both."""
    seen = {"trident-tomahawk" if m[1] else "sand" for text in texts for m in _QUEUE_BLOCK.finditer(text)}
    return seen.pop() if len(seen) == 1 else None


def parse(inputs: list[Input], name: str) -> Device:
    from .build import build  # the reader and builder: when parsing, not when sniffing other platforms' files
    from .reader import read

    configs, neighbors, issues = [], [], IssueList()
    for inp in inputs:
        if not capture.is_capture(inp.text):
            configs.append(inp)
            continue
        header, sections = capture.for_platform(inp.text, inp.path, PLATFORM)
        name = header["device"]
        last = last_sections(sections, {"config": _RUNNING_CONFIG})
        last |= last_sections(answered(sections, PLATFORM), {"lldp": _LLDP})
        if "config" not in last:
            raise InputError("this EOS capture has no `show running-config` section", file=inp.path, line=1)
        if "lldp" in last:
            found, problems = lldp.parse(last["lldp"].output, inp.path, last["lldp"].line)
            neighbors.extend(found)
            issues.extend(problems)
        configs.append(Input(inp.path, capture.section_text(last["config"])))
    device = build(read(configs), PLATFORM, name, inputs[0].path)
    device.config_family = queue_family(c.text for c in configs)
    device.neighbors, device.issues = neighbors, [*device.issues, *issues]  # (IssueLists: read, not copied)
    return device
