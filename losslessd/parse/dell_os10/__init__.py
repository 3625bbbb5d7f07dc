"""Dell SmartFabric OS10 (PowerSwitch S5248F-ON, S5232F-ON, Z9264F-ON ...) `show running-configuration`: trust maps
(802.1p / DSCP -> qos-group), the qos-group -> queue map, no-drop network-qos classes and PFC, queuing policies and
WRED/ECN profiles.

OS10 spreads RoCE settings over named maps and policies bound on the interface or under `system qos` (the interface's
binding wins): `trust dot1p-map` / `trust dscp-map` classify into qos-groups, `qos-map traffic-class` puts qos-groups
on queues, a `policy-map type network-qos` class with `pause` and `pfc-cos` makes its qos-group no-drop, and a
`policy-map type queuing` class gives its queue a bandwidth share and a `wred` profile (Dell SmartFabric OS10 User
Guide, "Quality of service"). The config may also come inside a losslessd capture (docs/capture-format.md) holding
`show running-configuration`.
"""

from __future__ import annotations

import re

from ... import capture
from ...lazyre import lazy
from ...model import Device
from ..base import SNIFF_CHARS, Input, config_inputs

PLATFORM = "dell_os10"

# The header `show running-configuration` prints: `! Version 10.5.1.0` then `! Last configuration change at ...`;
# Enterprise Edition releases name themselves `10.3.0E`, `10.4.0E(R1)` there (the Ansible dellemc.os10 collection's
# device fixtures: tests/unit/modules/network/os10/fixtures/show_running-config, roles/os10_copy_config).
_HEADER = lazy(r"^! Version 10\.[0-9.]+(?:E(?:\([A-Z0-9.]{1,16}\))?)?[ \t]*\r?\n! Last configuration change at ",
               re.MULTILINE)
# OS10 names front-panel ports ethernet<node>/<slot>/<port>[:<sub-port>] (lower case, three numbers); NX-OS, EOS and
# SONiC write Ethernet with a capital or two numbers.
# (Either may follow a configuration-mode prompt, `OS10(config)# interface ethernet 1/1/1`, as a session types it.)
_TYPED = r"^[ \t]*(?:[^\s(]{1,128}\([^)\s]{1,256}\)#[ \t]?)?"
_ETHERNET = lazy(_TYPED + r"interface (?:range )?ethernet ?[0-9]{1,3}/[0-9]{1,3}/[0-9]{1,3}(?::[0-9]{1,2})?\b",
                 re.MULTILINE)
# The form `show running-configuration` prints a port in, `interface ethernet1/1/1` (lower case, no blank, three
# numbers: OS10 User Guide, "Interfaces"), is OS10's alone: NX-OS prints `Ethernet101/1/1` (a FEX port), EOS
# `Ethernet3/1/1`, Onyx types `interface ethernet 1/1/1` with a blank (a split port) and OS9 names the port type. With
# a blank (what a session may type on OS10 or Onyx) it is a sign only beside an OS10 QoS line.
_OWN_ETHERNET = lazy(_TYPED + r"interface (?:range )?ethernet[0-9]{1,3}/[0-9]{1,3}/[0-9]{1,3}(?::[0-9]{1,2})?\b",
                     re.MULTILINE)
# QoS lines OS10 does not write, NX-OS's (and EOS's) order of words: `service-policy type T input|output NAME` and a
# policy-map's `class type T NAME` (Nexus 9000 NX-OS QoS Configuration Guide); OS10 writes `service-policy input|output
# type T NAME` and `class NAME` (OS10 User Guide, "Quality of service"). Beside one, `interface ethernet1/49/1` is an
# NX-OS breakout port (Nexus 9000 NX-OS Interfaces Configuration Guide: `Ethernet1/49/1`) typed in lower case.
_OTHERS_QOS = lazy(_TYPED + r"(?:service-policy type (?:network-qos|queuing|qos) (?:input|output)|"
                   r"class type (?:network-qos|queuing|qos)) \S", re.MULTILINE)
# QoS lines only OS10 writes: its trust and qos-group maps, and `service-policy input|output type ...` (NX-OS writes
# `service-policy type ... input|output`). The NX-OS sniffer leaves a file holding one of them alone.
OS10_QOS = lazy(_TYPED + r"(trust (?:dot1p|dscp)-map \S|trust-map (?:dot1p|dscp) \S|qos-map traffic-class \S|"
                       r"service-policy (?:input|output) type (?:network-qos|queuing|qos) \S)", re.MULTILINE)
# A configuration-mode session with OS10's own interface prompts (OS10 User Guide, "Interfaces":
# `OS10(conf-if-eth1/1/1)#`, `OS10(conf-range-eth1/1/1-1/1/5)#`); Dell OS9 names its modes `conf-if-te-0/1`, NX-OS and
# EOS `config-if...`.
_SESSION = lazy(r"^[ \t]*[^\s(]{1,128}\(conf-(?:if|range)-eth[0-9]{1,3}/[0-9]{1,3}/[0-9]{1,3}[^)\s]{0,64}\)#",
                re.MULTILINE)
_RUNNING_CONFIG = lazy(r"^(?:sh|sho|show)\s+run(?:ning-config(?:uration)?)?(?:\s+\S+)*\s*$")


def sniff(inp: Input) -> bool:
    """An OS10 capture, the OS10 running-configuration header, a session with OS10's interface prompts, a port in the
    form only OS10 prints (`interface ethernet1/1/1`) beside no QoS line of another platform's, or `interface ethernet
    1/1/1` beside a QoS line only OS10 writes (both are needed: either alone is no proof)."""
    named = capture.sniff_platform(inp.text)
    if named is not None:
        return named == PLATFORM
    head = inp.text[:SNIFF_CHARS]
    return bool(_HEADER.search(head) or _SESSION.search(head)
                or (_OWN_ETHERNET.search(head) and not _OTHERS_QOS.search(head))
                or (_ETHERNET.search(head) and OS10_QOS.search(head)))


def parse(inputs: list[Input], name: str) -> Device:
    from .build import build  # the reader and builder: when parsing, not when sniffing other platforms' files
    from .reader import read

    configs, captured = config_inputs(inputs, PLATFORM, _RUNNING_CONFIG, "show running-configuration")
    return build(read(configs), PLATFORM, captured or name, inputs[0].path)
