"""Arista EOS `show running-config` text: trust, DSCP/CoS maps, PFC, PFC watchdog, tx-queue scheduling and ECN.

Interfaces take their QoS from a `qos profile` through `service-profile`; the interface's own
lines override the profile's. What EOS does by default (DSCP map, trust, strict-priority
queues) is filled in, so each port shows its effective settings.
"""

from __future__ import annotations

import re

from ...model import Device
from ..base import Input
from .build import build
from .reader import read

PLATFORM = "arista_eos"

_SNIFF_CHARS = 256 * 1024
_HEADER = re.compile(r"^! (Command: show running-config|device: \S+ \(.*EOS-)", re.M)
# EOS indents sub-commands by three spaces (NX-OS by two, IOS by one).
_EOS_BLOCK = re.compile(r"^(interface (Ethernet|Port-Channel|Management|Loopback|Vlan)\S*|qos profile \S+)\r?\n {3}\S",
                        re.M)
# NX-OS (`feature`, `version`, `!Command:` without a space), Junos (`set ...`, brace blocks).
_FOREIGN = re.compile(r"^(feature \S|version \d|!Command:|!Time:|set \S|[^!\n]*\{[ \t]*\r?$)", re.M)


def sniff(inp: Input) -> bool:
    """An EOS running-config header, or an interface/qos profile block indented the EOS way."""
    head = inp.text[:_SNIFF_CHARS]
    return not _FOREIGN.search(head) and bool(_HEADER.search(head) or _EOS_BLOCK.search(head))


def parse(inputs: list[Input], name: str) -> Device:
    return build(read(inputs), PLATFORM, name, inputs[0].path)
