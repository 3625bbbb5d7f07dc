"""Dell Networking OS9 (FTOS: S4810, S4820T, S6000, S4048-ON ...) `show running-config`: DCB maps (`dcb-map` with
`priority-group N bandwidth P pfc on|off` and `priority-pgid`), the interfaces they are applied to, 802.1p trust and
802.3x flow control.

OS9 runs PFC per 802.1p priority from a DCB map applied to the interface (Dell Networking OS9 Configuration Guide,
"Data Center Bridging (DCB)": a priority whose priority group has `pfc on` is lossless); without a DCB map no PFC
or ETS setting applies to an Ethernet interface. The config may also come inside a losslessd capture
(docs/capture-format.md) of `show running-config`.
"""

from __future__ import annotations

import re

from ... import capture
from ...lazyre import lazy
from ...model import Device
from ..base import SNIFF_CHARS, Input, config_inputs

PLATFORM = "dell_os9"

# The version line OS9 prints first: `! Version 9.9(0.0)`, a release number with its build in parentheses, a patch
# build with a letter (`! Version 9.11(0.0P2)`, as Dell's own JetPack sample S4048-ON configuration saves it).
_VERSION = r"^! Version 9\.[0-9]{1,2}\([0-9][0-9A-Za-z.]*\)[ \t]*\r?"
# The header: the version line, then `! Startup-config last updated at ...` or `! Last configuration change at ...`.
_HEADER = lazy(_VERSION + r"\n! (?:Startup-config last updated|Last configuration change) at ", re.MULTILINE)
# The version line alone (a configuration saved without its time stamps, as Dell's JetPack samples are): taken with
# an OS9 port name below it.
_VERSION_LINE = lazy(_VERSION + "$", re.MULTILINE)
# OS9 names ports by type, a blank and unit/port, or unit/port/subport for a port split in four (`TenGigabitEthernet
# 0/1`, `fortyGigE 0/48`, `twentyFiveGigE 1/1/1` of a Z9100-ON `portmode quad` port; typed, `te 0/1`: port_type)
# (Cisco IOS writes `TenGigabitEthernet1/0/1`, Dell OS10 `ethernet1/1/1`, without the blank).
_PORT = lazy(r"^interface ([A-Za-z-]{2,}) [0-9]{1,2}/[0-9]{1,3}(?:/[0-9]{1,2})?[ \t]*\r?$", re.MULTILINE)
# or a configuration-mode paste's range of them (`interface range ten 0/0-31`: reader._range_ports)
_RANGE = lazy(r"^interface range ([A-Za-z-]{2,}) [0-9]{1,2}/[0-9]", re.MULTILINE)
# Front-panel port types OS9 names (OS9 Configuration Guide, "Interfaces"); management, loopback, VLAN and
# port-channel interfaces carry no DCB map.
_PORT_TYPES = ("TenGigabitEthernet", "fortyGigE", "hundredGigE", "twentyFiveGigE", "GigabitEthernet")
# The interface types besides them an `interface` command takes (OS9 Command Line Reference, `interface`), against
# which an abbreviation must be unique.
_OTHER_TYPES = ("fiftyGigE", "fibrechannel", "group", "loopback", "managementethernet", "null", "port-channel",
                "range", "tunnel", "vlan")


def interface_type(word: str) -> str | None:
    """The interface type an `interface` command's type word names, as OS9 prints it: OS9 takes the type in any case
    and abbreviated to a unique prefix (`show running-config interface te 0/4` prints `interface TenGigabitEthernet
    0/4`: Dell Networking OS9 Aggregator Administrator Guide, "Data Center Bridging"); None for a word that is no
    type, or a prefix of several."""
    low = word.lower()
    hits = [t for t in (*_PORT_TYPES, *_OTHER_TYPES) if t.lower().startswith(low)]
    exact = [t for t in hits if t.lower() == low]
    return (exact or hits)[0] if len(exact or hits) == 1 else None


def port_type(word: str) -> str | None:
    """The front-panel port type ``word`` names (interface_type), None for another."""
    kind = interface_type(word)
    return kind if kind in _PORT_TYPES else None


_DCB_MAP = lazy(r"^[ \t]*dcb-map \S", re.MULTILINE)
# A configuration-mode session with OS9's prompts: CONFIGURATION mode is `(conf)` (Dell OS10, NX-OS, EOS and Onyx
# write `(config)`), beside an OS9 port's or DCB map's mode (`DellEMC(conf-if-te-1/5)#`, `(conf-if-range-te-0/9-10)#`,
# `(conf-dcbmap-NAME)#`: clitext._CONFIG_PROMPT). Brocade Network OS also names a port's mode `conf-if-te-7/0/1`, but
# under `(config)#`: both prompts are needed.
_SESSION_CONF = lazy(r"^[ \t]*[^\s(]{1,128}\(conf\)#", re.MULTILINE)
_SESSION_MODE = lazy(r"^[ \t]*[^\s(]{1,128}\(conf-(?:if-(?:range-)?[A-Za-z]{2}-[0-9]|dcbmap-[^)\s])", re.MULTILINE)
_RUNNING_CONFIG = lazy(r"^(?:sh|sho|show)\s+run(?:ning-config)?(?:\s+\S+)*\s*$")


def sniff(inp: Input) -> bool:
    """An OS9 capture, the OS9 running-config header, a session with OS9's prompts, or an OS9 port name (or range of
    them) beside a `dcb-map` line or the OS9 version line."""
    named = capture.sniff_platform(inp.text)
    if named is not None:
        return named == PLATFORM
    head = inp.text[:SNIFF_CHARS]
    return bool(_HEADER.search(head)
                or (_SESSION_CONF.search(head) and _SESSION_MODE.search(head))
                or ((_DCB_MAP.search(head) or _VERSION_LINE.search(head)) and any(
                    port_type(m.group(1)) for pattern in (_PORT, _RANGE) for m in pattern.finditer(head))))


def parse(inputs: list[Input], name: str) -> Device:
    from .reader import build, read  # when parsing, not when sniffing other platforms' files

    configs, captured = config_inputs(inputs, PLATFORM, _RUNNING_CONFIG, "show running-config")
    return build(read(configs), PLATFORM, captured or name, inputs[0].path)
