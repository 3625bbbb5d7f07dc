"""Cisco NX-OS (Nexus 9000) running-config: DSCP -> qos-group classification, no-drop classes and PFC,
the PFC watchdog, egress queue scheduling and WRED/ECN.

NX-OS spreads RoCE settings over MQC policies: a `policy-map type qos` (per interface, or in
`system qos`) sets the qos-group, a `policy-map type network-qos` in `system qos` makes qos-groups
no-drop (`pause pfc-cos`), and a `policy-map type queuing` sets each egress queue's scheduling and
WRED/ECN. The config may also come inside a losslessd capture (docs/capture-format.md) holding
`show running-config ipqos all` and `show running-config interface` (platforms.py); every
running-config section of it is read. A capture may also hold the switch's LLDP neighbours (the last `show lldp
neighbors [detail]`, and every per-interface `show lldp neighbors interface ethernet 1/1 detail`) and its
port-channels' members (`show port-channel summary`, `show interface port-channel N`: parse/nxos/channels.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ... import capture
from ...lazyre import lazy
from ...model import Device, Neighbor, ParseIssue
from .. import lldp
from ..base import (
    CONFIG_PROMPT_TYPED,
    VERSION,
    Captured,
    Input,
    capture_inputs,
    captured_model,
    long_interface_name,
    sniff_text,
)
from ..dell_os10 import OS10_QOS
from .channels import read_interfaces, read_summary

PLATFORM = "cisco_nxos"

# NX-OS headers (`!Command: show running-config`, `!Time:`), which configuration-backup tools strip for stable diffs;
# the header RANCID writes for its `cisco-nx` device type (`!RANCID-CONTENT-TYPE: cisco-nx`, each rancid module's
# init); the running-config's image line (`boot nxos bootflash:...`, Nexus 9000/3000 since NX-OS 7: a whole
# configuration, not an excerpt); and QoS lines no other CLI has (EOS also has `class-map type qos`: no sign), the
# port's among them indented as an interface excerpt prints them (Nexus 9000 QoS guide: `priority-flow-control
# watch-dog-interval on|off`, `service-policy type queuing output NAME`; EOS and OS10 name neither so).
_NXOS = lazy(r"^(!Command: show running-config|!Time: |!RANCID-CONTENT-TYPE: cisco-nx\s*$|boot nxos \S|"
             r"system qos\r?$|policy-map type (network-qos|queuing) \S|"
             r"[ \t]*priority-flow-control watch-dog-interval |[ \t]*service-policy type queuing (in|out)put \S)",
             re.MULTILINE)
_RUNNING_CONFIG = lazy(r"^(?:sh|sho|show)\s+run(?:ning-config)?(?:\s+\S+)*\s*$")
# NX-OS takes abbreviated commands (`sh lldp nei det`, `sh port-ch sum`).
_LLDP = lazy(r"^(?:sh|sho|show)\s+lldp\s+nei\w*(?:\s+det\w*)?\s*$")
_PORT_CHANNELS = lazy(r"^(?:sh|sho|show)\s+port-ch\w*\s+summ?\w*\s*$")
# `show interface port-channel 10`, `sh int po10`, `show interface port-channel` (every port-channel).
_PORT_CHANNEL_IF = lazy(r"^(?:sh|sho|show)\s+int\w*\s+(?:port-ch\w*|po)(?P<number>\s*\d+)?\s*$", re.IGNORECASE)
# A configuration-mode session with NX-OS's prompts for its QoS modes (Nexus 9000 QoS guide: `switch(config-cmap-qos)#`,
# `(config-pmap-qos)#`, `(config-pmap-c-qos)#`, `(config-pmap-nqos)#`, `(config-pmap-nqos-c)#`, `(config-pmap-que)#`,
# `(config-pmap-c-que)#`, `(config-sys-qos)#`, `(config-if-range)#`); EOS names its modes otherwise (`config-if-Et1`,
# `config-cmap-qos-NAME`, `config-pmap-quality-of-service-NAME`, `config-qos-profile-P`).
_SESSION = lazy(r"^\S+\(config-(?:(?:cmap|pmap)-(?:qos|nqos|que)|pmap-c-(?:qos|que)|pmap-nqos-c|sys-qos|if-range)"
                r"\)", re.M)


def sniff(inp: Input) -> bool:
    """An NX-OS capture, or an NX-OS header or QoS block in the first part of the file, unless it also holds a QoS
    line only Dell OS10 writes (`trust dot1p-map`, `qos-map traffic-class`, `service-policy input type ...`): OS10's
    `system qos` and `policy-map type network-qos` look like NX-OS's, their class commands do not."""
    return sniff_text(inp, PLATFORM, _NXOS, _SESSION, foreign=OS10_QOS)


# `show version`: "cisco Nexus9000 C93180YC-EX Chassis" / "cisco Nexus3000 C3132Q-40GX Chassis".
# (`tune` reads the model with it from the `show version` it runs beside the configuration.)
MODEL = lazy(r"^\s*cisco (Nexus.*?)\s+[Cc]hassis", re.MULTILINE)


# A network-qos class's pause line as a config, a paste or a session's prompt (`(config-pmap-nqos-c)# pause ...`)
# writes it: `pause pfc-cos N` in the Nexus 9000's system-defined c-8q-nqN classes (Nexus 9000 NX-OS QoS Configuration
# Guide, PFC chapter), `pause no-drop` in the Nexus 3000's user classes (Nexus 3000 NX-OS QoS Configuration Guide; the
# SDN Nexus 3132 RoCE configuration): render.families' n9k and n3k.
_PAUSE_LINE = lazy(rf"^(?:{CONFIG_PROMPT_TYPED})?[ \t]*pause (pfc-cos|no-drop)\b", re.MULTILINE)


def pause_family(texts: Iterable[str]) -> str | None:
    """The family (render.families) a config's own network-qos pause lines show, which the switch took: n9k for
    `pause pfc-cos`, n3k for `pause no-drop`; None where it shows none, or both."""
    seen = {"n9k" if m[1] == "pfc-cos" else "n3k" for text in texts for m in _PAUSE_LINE.finditer(text)}
    return seen.pop() if len(seen) == 1 else None


def parse(inputs: list[Input], name: str) -> Device:
    from .build import build  # the reader and builder: when parsing, not when sniffing other platforms' files
    from .reader import read

    configs, captured, found = capture_inputs(inputs, PLATFORM, _RUNNING_CONFIG, "show running-config",
                                              {**VERSION, "lldp": _LLDP, "channels": _PORT_CHANNELS})
    device = build(read(configs), PLATFORM, captured or name, inputs[0].path)
    device.hardware, device.hardware_source = captured_model(inputs, PLATFORM, MODEL, found) or (None, None)
    device.config_family = pause_family(c.text for c in configs)
    for cap in found:
        if "channels" in cap.last:
            sec = cap.last["channels"]
            members, issues = read_summary(sec.output, cap.path, sec.line)
            device.bundle_members = {**(device.bundle_members or {}), **members}
            device.issues.extend(issues)
        for sec in cap.answered:  # (one section per port-channel asked about: each read; a later one wins)
            if asked := _PORT_CHANNEL_IF.match(" ".join(sec.command.split())):
                shown, issues = read_interfaces(sec.output, cap.path, sec.line, every=asked["number"] is None)
                device.bundle_members_shown = {**(device.bundle_members_shown or {}), **shown}
                device.issues.extend(issues)
        neighbors, issues = _neighbors(cap)
        device.neighbors.extend(neighbors)
        device.issues.extend(issues)
    return device


def _neighbors(cap: Captured) -> tuple[list[Neighbor], list[ParseIssue]]:
    """The LLDP neighbours of a capture: its last whole-table section, and every per-interface detail section (each
    of the port its command names; IOS-like releases print no local port in it) the switch answered."""
    neighbors: list[Neighbor] = []
    issues: list[ParseIssue] = []
    path, table = cap.path, cap.last.get("lldp")
    if table is not None:
        found, problems = lldp.parse(table.output, path, table.line)
        neighbors.extend(found)
        issues.extend(problems)
    seen: dict[str, capture.Section] = {}
    for sec in cap.answered:
        port = _command_port(sec.command)
        if port is not None:
            seen[port] = sec  # (a command given twice: the last output counts)
    for port, sec in seen.items():
        found, problems = lldp.parse(sec.output, path, sec.line, port=port)
        neighbors.extend(found)
        issues.extend(problems)
    return neighbors, issues


def _command_port(command: str) -> str | None:
    """The port a per-interface LLDP command names, as the config spells it: NX-OS takes `ethernet 1/1`, `eth1/1` and
    `e1/1` for Ethernet1/1 (the reader's spellings); another interface as typed (`mgmt0`). None for any other command,
    or a range of ports."""
    from ..clitext import LineError
    from .reader import _ethernets  # (the `interface` line's reader: its spellings, its ranges)

    words = lldp.command_port(" ".join(command.split()))
    if words is None:
        return None
    try:
        ports = _ethernets(words)
    except LineError:
        return None
    if not ports:  # no Ethernet port (`po10`, `Po10`: Port-Channel10, NX-OS taking the name in any case)
        return long_interface_name("".join(words), ignore_case=True)
    return ports[0] if len(ports) == 1 else None
