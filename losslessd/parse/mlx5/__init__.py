"""Linux host with NVIDIA ConnectX (mlx5) NICs: a losslessd capture, or a bare `mlnx_qos -i IF` output.

A capture (docs/capture-format.md, written by examples/collect-host-capture.sh) holds per RoCE
interface `mlnx_qos -i IF`, the sysfs reads below and, per mlx5 device, cma_roce_tos. Sysfs reads
are recognised by the path they read, whether one file (`cat PATH`, output = value) or several
(`grep . PATH...`, output lines `PATH:value`):
- /sys/class/net/IF/mtu, /sys/class/net/IF/speed (Mb/s; -1 when the link is down);
- /sys/class/net/IF/ecn/roce_np/enable/N and roce_rp/enable/N, N = priority 0..7 (DCQCN
  notification / reaction point; NVIDIA MLNX_OFED user manual, "Explicit Congestion Notification");
- /sys/class/net/IF/ecn/roce_np/cnp_dscp and cnp_802p_prio (how this NIC marks the CNPs it sends);
- /sys/kernel/config/rdma_cm/DEV/ports/1/default_roce_tos, the value `cma_roce_tos -d DEV -t TOS`
  sets (mlnx-tools sbin/cma_roce_tos); `cma_roce_tos -d DEV` output is read too;
- /sys/class/net/IF/ecn/roce_rp/NAME and roce_np/NAME: the DCQCN parameters (rpg_*, rate_*, dce_tcp_*,
  min_time_between_cnps ...), read with `grep -s .`;
- /sys/class/infiniband/DEV/tc/PORT/traffic_class: the device-wide traffic class (MLNX_OFED), a number or
  `Global tclass=N`; empty when not set.
`ethtool -a IF` gives the link-level (802.3x) pause state, `ip -d link show dev IF` the NIC's max MTU
(`maxmtu N`), and `cat /etc/nccl.conf` the NCCL settings every job gets (NAME=VALUE lines).
`ethtool IF` is read for the speed when the sysfs speed is absent; `lldpcli show neighbors` (or
`lldpctl`) output, as text, keyvalue or JSON, gives the host's LLDP neighbours.

A host setup script (a `#!` shell script running `mlnx_qos -i IF`, as `losslessd render` writes) is read
too: its commands say what the NIC will be set to (see script.py). Several inputs of one host are read in
order, each over the state the ones before left: a capture followed by a script (such as `losslessd fix`
prints) is the host as it will be once the script has run on it.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from collections.abc import Iterable

from ... import capture, units
from ...capture import Section
from ...errors import InputError
from ...lazyre import lazy
from ...lint.finding import few
from ...model import Device, DeviceKind, LinkPause, NicEcn, ParseIssue, Port, Source
from ...platforms import PLATFORMS
from .. import lldp
from ..base import Input, IssueList, check_port_count, line_source, port_slot, positional, shell_words
from ..braces import holds_expression
from . import dcb_show, mlnx_qos, sysfs
from .wrappers import unwrap

PLATFORM = "linux_mlx5"
PLACEHOLDER_PORT = "eth?"

_PATH = (r"/class/net/(?P<iface>[^/\s]+)/(?:(?P<attr>mtu|speed)"
         r"|ecn/(?P<proto>roce_np|roce_rp)/enable/(?P<prio>[0-9]{1,3})"
         r"|ecn/roce_np/(?P<cnp>cnp_dscp|cnp_802p_prio)|ecn/(?P<pproto>roce_np|roce_rp)/(?P<param>[a-z][a-z0-9_]{0,40}))"
         r"|/rdma_cm/(?P<dev>[^/\s]+)/ports/\d{1,3}/default_roce_tos"
         r"|/class/infiniband/(?P<tcdev>[^/\s]+)/tc/\d{1,3}/traffic_class")
_PATH_RE = lazy(f"(?:{_PATH})$")
_GREP_LINE = lazy(rf"^(?P<path>\S*?(?:{_PATH})):(?P<value>.*)$")
# Which fact group a command argument reads (a glob such as .../enable/* counts).
_GROUP_RE = lazy(r"/class/net/([^/\s*?\[]+)/(mtu|speed|ecn/roce_np/enable|ecn/roce_rp/enable|ecn/roce_np/cnp_\w+"
                       r"|ecn/roce_(?:np|rp)/(?:\*|[a-z]\w*))")
_BARE_TC = lazy(r"^\s*tc:\s*\d+\s+ratelimit:", re.M)
# A sysfs file and its value printed one a line, as `grep -r . DIR` prints them (`PATH:VALUE`) or as a query script
# echoes them (`PATH = VALUE`, maybe after a label of its own: `ECN Enabled for priority 3: PATH = 1`): read as a
# `cat PATH` of that file, its port named by the path.
# (the value up to the line's end, its blanks stripped after: a lazy value before `[ \t]*$` cost a long blank run its
# length squared)
_DUMP_LINE = lazy(r"^[ \t]*(?:[^/\n:]{1,80}:[ \t]+)?(?P<path>/sys/[\w./+@-]{1,200})(?:[ \t]*=[ \t]*|:)"
                  r"(?P<value>[^\n]*)$")
_BARE_PFC = lazy(r"^\s*PFC configuration:\s*$", re.M)
# A terminal prompt before a command: `$ `, `# `, `user@host:~$ `, `[root@host ~]# `, or `+ ` (bash `set -x`).
_PROMPT_LINE = lazy(r"^\s*(?:\++ |(?:\S*[$#]|\[[^\]\n]*\][$#]) +)(\S.*)$")
# A prompt with nothing typed after it (`root@host:~# ` as a transcript shows an Enter pressed): it ends the output
# above it and runs nothing; told by a shell prompt's `user@host...` or `[user@host dir]` before its `$` or `#`.
_EMPTY_PROMPT = lazy(r"^\s*(?:[\w.-]+@\S*?[$#]|\[[^\]\n]*\][$#])\s*$")
# A command starts a line, or follows a list's separator, a case arm's pattern or a compound command's word (bash(1)
# Lists, Compound Commands: `case "$IFACE" in eth0) mlnx_qos ...;; esac`, `if ...; then mlnx_qos ...`).
_COMMAND_START = r"(?:^|(?<=[;&|()])|(?<=\bthen[ \t])|(?<=\bdo[ \t])|(?<=\belse[ \t]))[ \t]*"
# A command's start, then `sudo` and its options or a path before the command's name (a path up to the next separator,
# so each start's scan ends where the next start begins).
_RUN_BY = _COMMAND_START + r"(?:sudo[ \t]+(?:-[^\s;&|()]+[ \t]+)*)?(?:[^\s;&|()]*/)?"
# An mlnx_qos call naming its port, where a command starts (maybe after sudo and its options, or a path): prose that
# mentions `mlnx_qos -i IF` mid-line names no run. (Its `-i` is looked for up to the command's end or the next
# mlnx_qos: a line of 5,000 `;mlnx_qos ` cost 1.8 s, their count squared, when each scanned to the line's end.)
_BARE_CMD = lazy(_RUN_BY + r"mlnx_qos\s"
                 r"(?:(?!mlnx_qos)[^;&|\n])*?"
                 r"(?:--interface[=\s]\s*|(?<!\S)-i\s*)([^\s\-][^\s]*)", re.M)
# `dcb [OPTIONS] pfc|ets|app|buffer show dev IF` (dcb(8); show may be abbreviated, as dcb's matches() takes a prefix)
# (its options each a word of their own, `-n NETNS` with its value: no run of words is tried more than one way)
_DCB_SHOW_CMD = lazy(_RUN_BY + r"dcb"
                     r"(?:[ \t]+-\S+(?:[ \t]+[^\s-]\S*)??)*[ \t]+(?:pfc|ets|app|buffer)[ \t]+"
                     r"s(?:h(?:o(?:w)?)?)?[ \t]+dev[ \t]+([^\s\-]\S*)", re.M)
_ETHTOOL_SPEED = lazy(r"^\s*Speed:\s*(\S+)\s*$", re.M)
# `ethtool -a IF` (ethtool(8) --show-pause): "Autonegotiate:\ton", "RX:\t\toff", "TX:\t\toff".
# ethtool.c dump_drvinfo: `ethtool -i IF` prints "driver: NAME", then version, firmware-version, bus-info ...
_DRIVER_LINE = lazy(r"^driver:[ \t]*(\S{1,64})[ \t\r]*$", re.M)
# What grep and cat print for a file that is not there (strerror(ENOENT)): on a NIC without mlx5's sysfs ecn/ files.
_ABSENT_LINE = lazy(r"(?:grep|cat): (\S+): No such file or directory")
_PAUSE_LINE = lazy(r"^\s*(Autonegotiate|RX|TX):\s*(on|off)\s*$", re.M)
# iproute2 `ip -d link show`: "minmtu 68 maxmtu 9978", a word of its own (_maxmtu_at: searched without a leading
# \b, which made the expression engine try every character; each host prints its own MAC address there).
_MAXMTU = lazy(r"maxmtu ([0-9]{2,7})\b")
_WORD = lazy(r"\w")
_TCLASS = lazy(r"^(?:Global\s+)?(?:tclass=)?([0-9]{1,3})$")
# A script names an RDMA device's traffic_class through its interface, as it does for cma_roce_tos.
_ECN_OR_MTU = lazy(r"/ecn/|/mtu$")  # (the files a script's write to a run-time path may be: `$BASE/mtu`)
_SCRIPT_TCLASS = lazy(r"^/sys/class/infiniband/\$\(ls /sys/class/net/([^/\s]+)/device/infiniband\)/tc/\d{1,3}"
                            r"/traffic_class$")
# Optional reads whose empty output means "not there": the DCQCN parameter globs.
_OPTIONAL_GLOB = lazy(r"/ecn/roce_(?:np|rp)/\*$|/class/infiniband/\*/tc/\d{1,3}/traffic_class$")
# What ethtool and iproute2 print for an interface they cannot query (kept in the capture, no finding).
_NO_DEVICE = lazy(r"No such device|does not exist|Cannot get|not supported", re.IGNORECASE)
_NCCL_LINE = lazy(r"^\s*(NCCL_[A-Z0-9_]+)\s*=\s*(\S*)\s*$")
_IFACE = lazy(r"[^/\s]{1,64}")
_INT = lazy(r"-?[0-9]{1,12}")  # (\\d would take other scripts' digits, which int() reads)

# What a capture must hold per interface: group -> (command that reads it, what is unknown without it).
_EXPECTED = {
    "mlnx_qos": ("mlnx_qos -i {}", "trust, PFC, DSCP/priority/TC maps, receive buffers and schedulers"),
    "mtu": ("cat /sys/class/net/{}/mtu", "MTU"),
    "speed": ("cat /sys/class/net/{}/speed", "port speed"),
    "ecn/roce_np/enable": ("grep . /sys/class/net/{}/ecn/roce_np/enable/*", "DCQCN notification point switches"),
    "ecn/roce_rp/enable": ("grep . /sys/class/net/{}/ecn/roce_rp/enable/*", "DCQCN reaction point switches"),
    "ecn/roce_np/cnp": ("grep . /sys/class/net/{0}/ecn/roce_np/cnp_dscp /sys/class/net/{0}/ecn/roce_np/cnp_802p_prio",
                        "CNP DSCP and priority"),
}
# The `dcb OBJECT show dev IF` sections that together stand for `mlnx_qos -i IF` in a capture (a bare `dcb show`
# output whose lines name their objects may hold all three).
_DCB_WHAT = {"dcb-pfc": "PFC priorities", "dcb-ets": "priority->TC map and schedulers",
             "dcb-app": "trust and DSCP->priority map"}
# Port(name=, qos_configured=, source=) without the keyword call (parse.base.positional).
_nic_port = positional(Port, "name", "qos_configured", "source")
_nic_ecn = positional(NicEcn, "source")
_link_pause = positional(LinkPause, "autoneg", "rx", "tx", "source")
_host = positional(Device, "name", "kind", "platform")
_TOS_COMMAND = "cat /sys/kernel/config/rdma_cm/<mlx5 device>/ports/1/default_roce_tos"
# What the mlnx_qos options a DCB tool's line stands for set, in a message's words.
_SETTING_NAMES = {"--pfc": "PFC priorities", "--prio_tc": "priority->TC map", "--tsa": "schedulers",
                  "--dscp2prio": "DSCP->priority map", "--trust": "trust"}


def sniff(inp: Input) -> bool:
    platform = capture.sniff_platform(inp.text)
    if platform is not None:
        return platform == PLATFORM
    return (_is_bare_mlnx_qos(inp.text) or _is_bare_dcb(inp.text) or is_script(inp.text) or is_command_list(inp.text)
            or dcb_show.is_json_output(inp.text) or _is_sysfs_dump(inp.text))


def parse(inputs: list[Input], name: str) -> Device:
    host = _Host(name)
    for inp in inputs:
        host.add(inp)
    device = host.finish()
    device.issues = list(device.issues)  # (the model holds a plain list: IssueList is the reader's, validate.check)
    return device


# What sniffing reads of a setup script lives here; the script reader (script.py, a shell grammar's worth of regular
# expressions) is imported when a script or a terminal transcript is read, not for every file sniffed.
# `#!/bin/bash`, `#!/bin/sh -e`, `#!/usr/bin/env bash`
_SHEBANG = lazy(r"\A\s*#!\s*(?:\S*/env\s+(?:-\S+\s+)*)?\S*\b(?:ba|z|da|k)?sh\b")
# (blanks within the line only: `^\s*` ran on over the blank lines below each line start, so a text of blank lines
# cost their count squared to sniff: 80,000 of them 112 s)
_MLNX_QOS_COMMAND = lazy(_COMMAND_START + r"(?:sudo[ \t]+)?mlnx_qos[ \t]+(?:-i|--interface)\b", re.M)
# What only an RDMA host's setup runs or writes, without any DCB tool: RDMA-CM's default TOS (MLNX_OFED cma_roce_tos),
# an RDMA device's traffic class (sysfs /sys/class/infiniband/DEV/tc/N/traffic_class) or MLNX_OFED mlx5's DCQCN
# switches and CNP marking (/sys/class/net/IF/ecn/roce_np|roce_rp/...): a boot hook setting the RoCE TOS alone.
_CMA_ROCE_TOS = lazy(_RUN_BY + r"cma_roce_tos[ \t]",
                     re.M)
_RDMA_SYSFS = lazy(r"/sys/class/infiniband/[^\s/]+/tc/\d{1,3}/traffic_class\b"
                   r"|/sys/class/net/[^\s/]+/ecn/roce_(?:np|rp)/")
# A command line of iproute2 dcb or of lldptool (a path before it, `sudo` and its options allowed): the rest of it.
_DCB_TOOL_LINE = lazy(r"^[ \t]*(?:sudo[ \t]+(?:-\S+[ \t]+)*)?(?:\S*/)?(dcb|lldptool)[ \t]+([^\n]*)", re.M)
# dcb(8): `dcb [OPTIONS] OBJECT COMMAND dev DEV ...`; the objects that set a port's DCB (dcb-pfc(8), dcb-ets(8),
# dcb-app(8), dcb-apptrust(8), dcb-buffer(8), dcb-maxrate(8), dcb-rewr(8), dcb-dcbx(8)) and their setting commands
# (not show).
_DCB_SETS = lazy(r"(?:^|[ \t])(?:pfc|ets|app|apptrust|buffer|maxrate|rewr|dcbx)[ \t]+"
                       r"(?:set|add|replace|del|flush)[ \t]+dev[ \t]+[^\s;&|]")
# lldptool -T|set-tlv -i IF -V TLV ARG=VALUE: the DCBX arguments that change what lldpad applies to a port, per TLV,
# with the mlnx_qos options setting the same (lldptool-pfc(8): willing, enabled; lldptool-ets(8): willing, up2tc,
# tsa, tcbw; lldptool-app(8): app=prio,sel,pid; lldptool-dcbx(8) IEEE-DCBX mode=reset). DSCP entries (selector 5:
# linux include/uapi/linux/dcbnl.h IEEE_8021QAZ_APP_SEL_DSCP) set the NIC's DSCP->priority map, and on mlx5 its trust
# (drivers/net/ethernet/mellanox/mlx5/core/en/dcbnl.c, mlx5e_dcbnl_ieee_setapp); other selectors map an EtherType or
# port, which no rule reads.
_LLDPTOOL_DCB = {"PFC": {"willing": ["--pfc"], "enabled": ["--pfc"]},
                 "ETS-CFG": {"willing": ["--prio_tc", "--tsa"], "up2tc": ["--prio_tc"], "tsa": ["--tsa"],
                             "tcbw": ["--tsa"]},
                 "APP": {"app": ["--dscp2prio", "--trust"]},
                 "IEEE-DCBX": {"mode": ["--pfc", "--prio_tc", "--tsa", "--dscp2prio", "--trust"]}}


def is_shell(text: str) -> bool:
    """A shell script (#! line)."""
    return bool(_SHEBANG.match(text))


def is_script(text: str) -> bool:
    """A shell script that sets a NIC's DCB: runs `mlnx_qos -i IF`, an iproute2 `dcb OBJECT set|add|... dev IF` or an
    `lldptool -T -i IF -V PFC|ETS-CFG|APP|IEEE-DCBX ARG=VALUE`, or sets what only an RDMA host has (cma_roce_tos, the
    RDMA sysfs files: a boot hook giving RoCE its TOS alone): what sniffing takes for a host setup script."""
    if not is_shell(text):
        return False
    head = text[:262144]
    return bool(_MLNX_QOS_COMMAND.search(head) or _CMA_ROCE_TOS.search(head) or _RDMA_SYSFS.search(head)) or any(
        _DCB_SETS.search(rest) if tool == "dcb" else (_lldptool_changes(args := rest.split()) is not None
                                                    and _option(args, "-i", None) is not None)
        for tool, rest in _DCB_TOOL_LINE.findall(head))


# The programs a host's setup steps run, as guides print them one a line without a `#!` line (`sudo mlnx_qos -i IF
# --trust dscp`, `echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class`, `cma_roce_tos -d mlx5_0 -t 106`): every
# command of such a list runs one of them, or is a shell variable's assignment. (`set`: the shell's own options,
# `set -eu`, which losslessd's host script starts with: a fix appended to such steps reads back as them.)
_STEP_PROGRAMS = frozenset(("mlnx_qos", "echo", "cma_roce_tos", "cat", "ethtool", "ip", "sysctl", "modprobe", "mkdir",
                            "lldptool", "dcb", "ibdev2netdev", "show_gids", "export", "set"))
# (an assignment's value one word: `IF=${1:?usage: setup.sh <iface>}` too, bash(1) Parameter Expansion; an expansion
# is one token only where it holds a blank, which \S cannot cross: `${a}` read either way made each one a choice, and
# a line of 40 of them before a blank took 2^40 tries to refuse, in sniffing every input)
_STEP = lazy(r"(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?([\w.-]+)(?=\s|$)|[A-Za-z_]\w*=(?:\$\{[^{}\s]*\s[^{}\n]*\}|\S)*$")


def is_command_list(text: str) -> bool:
    """Host setup steps without a `#!` line: every command line (comments and blank lines aside, `\\` continuations
    joined) runs a program of _STEP_PROGRAMS or assigns a variable, and one is `mlnx_qos -i IF` or MLNX_OFED's
    `cma_roce_tos` (a sysfs write alone does not tell a ConnectX host's list from another Linux host's). A shell runs
    such a file as it runs a script (bash(1): a file without `#!` given to it is read as commands), so it is read as
    one."""
    head = text[:262144]
    if is_shell(text) or not (_MLNX_QOS_COMMAND.search(head) or _CMA_ROCE_TOS.search(head)):
        return False
    for line in head.replace("\\\n", " ").split("\n"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _STEP.match(line)
        if m is None or (m.group(1) is not None and m.group(1) not in _STEP_PROGRAMS):
            return False
    return True


def _lldptool_changes(args: list[str]) -> tuple[str, list[str]] | None:
    """(TLV, the mlnx_qos options naming what its ARG=VALUE settings change) where lldptool's arguments give
    lldpad a port's DCBX configuration (`-T -i IF -V PFC enabled=3`); None for a query (`-t`), LLDP's own `set-lldp
    adminStatus=...`, an LLDP TLV a host advertises, a TLV's `enableTx` alone, or an APP entry for an EtherType or
    port. A value given at run time may be any setting (`-V PFC $ARGS`)."""
    from .script import at_run_time

    if not any(a in ("-T", "set-tlv") for a in args):
        return None
    tlv = (_option(args, "-V", None) or "").upper()
    changes = _LLDPTOOL_DCB.get(tlv)
    if changes is None:
        return None
    settings = dict(a.split("=", 1) for a in args if "=" in a and not a.startswith("-"))
    if any(at_run_time(a) and "=" not in a for a in args[args.index("-V") + 2:]):
        settings.update(dict.fromkeys(("willing", "enabled", "up2tc", "tsa", "app", "mode"), "$(...)"))
    if settings.get("app", "").split(",")[1:2] not in (["5"], []) and not at_run_time(settings["app"]):
        del settings["app"]
    names = sorted({name for key in settings if key in changes for name in changes[key]})
    return (tlv, names) if names else None


def is_state(text: str) -> bool:
    """Whether ``text`` is a host's state (a capture, a bare mlnx_qos or dcb show output), which a script run after it
    changes, rather than a script: `fix` checks its script by reading it after the state, not appended to it (the
    lines of a script appended to a bare output would be read as output)."""
    return capture.is_capture(text) or _is_bare_mlnx_qos(text) or _is_bare_dcb(text) or _is_sysfs_dump(text)


def _is_bare_mlnx_qos(text: str) -> bool:
    head = text[:65536]
    return bool(_BARE_PFC.search(head) and (_BARE_TC.search(head) or "Priority trust state:" in head))


def _is_sysfs_dump(text: str) -> bool:
    """Sysfs files and their values one a line and nothing else (`grep -r . /sys/class/net/IF/ecn`, or a query
    script's `PATH = VALUE` lines), one of them a file only an RDMA host has (mlx5's ecn/ files, an RDMA device's
    traffic class, RDMA-CM's default TOS)."""
    head = text[:65536]
    if "/sys/" not in head:  # (every switch config and script is sniffed here: one C scan, not a regex a line)
        return False
    rdma, seen = False, 0
    for line in head.split("\n"):
        if not line.strip():
            continue
        if (m := _DUMP_LINE.match(line)) is None:  # (the first other line settles it)
            if _UNNAMED_TOS.match(line):
                continue
            return False
        rdma = rdma or bool(_RDMA_SYSFS.search(m.group("path")) or "/rdma_cm/" in m.group("path"))
        seen += 1
        if seen == 2000:
            break
    return rdma


# A query script's `cma_roce_tos: 160` (its label before what `cma_roce_tos` printed): no RDMA device named.
_UNNAMED_TOS = lazy(r"^[ \t]*cma_roce_tos:[ \t]*[0-9]{1,3}[ \t]*$")


def _dump_sections(lines: list[str], start: int) -> tuple[list[Section], list[str]]:
    """The `PATH = VALUE` / `PATH:VALUE` lines of a bare output from ``start`` on, each as the `cat PATH` section it
    stands for, and the lines with those blanked (what is left is the tool's own output, its line numbers kept)."""
    sections, rest = [], list(lines)
    for i in range(start, len(lines)):
        if (m := _DUMP_LINE.match(lines[i])) and _PATH_RE.search(m.group("path")):
            sections.append(Section(f"cat {m.group('path')}", m.group("value").strip(), i + 1))
            rest[i] = ""
    return sections, rest


def _is_bare_dcb(text: str) -> bool:
    """iproute2 `dcb pfc|ets|app|buffer show dev IF` output (or a transcript of such commands): a line of the PFC,
    ETS, app or buffer parameters as dcb prints them (`prio-pfc 0:off ... 3:on ...`, `prio-tc 0:0 ...`), and no `#!`
    (a script's `dcb ... set` lines are commands, not output). JSON output is read as a capture's section only."""
    head = text[:65536]
    return not is_shell(head) and bool(dcb_show.SHOW_LINE.search(head))


class _Host:
    """Collects one host's facts from its sections, then checks that nothing expected is missing."""

    def __init__(self, name: str):
        self.device = _host(name, DeviceKind.host, PLATFORM)
        self.device.issues = IssueList()
        self.named = False
        self.captured = False  # some input is a capture, so the sections it lacks are worth a word
        self.attempted: dict[str, set[str]] = {}  # iface -> fact groups some capture section tried to read
        # RDMA device -> (ToS byte, where it was set, order of the write); the last write to a device wins.
        self.tos: dict[str, tuple[int, Source, int]] = {}
        self.tos_of: dict[str, str] = {}  # a script's name for an interface's RDMA device -> the interface
        self._writes = itertools.count()
        self.tos_attempted = False
        self.ethtool_speed: dict[str, float] = {}
        self.qos_refused: dict[str, tuple[str, int]] = {}  # iface -> (what `mlnx_qos -i IF` answered, its line)
        # iface -> (issue, file, line) for each read of mlx5's ecn/ files that found none: an issue only where the port
        # has them (Port.mlx5_ecn), known once every section is read. None: MLNX_OFED's RDMA device traffic_class
        # file found absent, an issue only where some port has the ecn/ files (the same driver's).
        self.ecn_absent: dict[str | None, list[tuple[str, str, int]]] = {}
        # (file, line, the case's word, its pattern) of each arm of a `case "$IFACE" in NAME)` some command runs in
        self.arms: list[tuple[str, int, str, str]] = []

    # -- inputs ------------------------------------------------------------------------------
    def add(self, inp: Input) -> None:
        self.device.source = self.device.source or Source(file=inp.path)
        if capture.is_capture(inp.text):
            header, sections = capture.for_platform(inp.text, inp.path, PLATFORM)
            self.captured = True
            if not self.named:
                self.device.name, self.named = header["device"], True
        elif _is_bare_mlnx_qos(inp.text) or _is_bare_dcb(inp.text) or _is_sysfs_dump(inp.text):
            sections = self._bare(inp)
        elif is_shell(inp.text):  # sniffing asks for mlnx_qos too; a fix script may only echo to sysfs
            self._script(inp)
            return
        elif is_command_list(inp.text):
            self._issue("host setup steps without a `#!` line: read as a shell runs them, one command after another",
                        inp.path, 1, code="SYS004")
            self._script(inp)
            return
        elif inp.text.lstrip().startswith("{"):  # (a bare JSON object does not say which command printed it)
            raise InputError("JSON: a bare `dcb -j OBJECT show dev IF` output names neither the interface nor the "
                             "command that printed it: save it in a losslessd capture's section, whose `#% command: "
                             "dcb -j pfc show dev IF` line says both (docs/capture-format.md), or collect the host "
                             "with examples/collect-host-capture.sh", file=inp.path, line=1)
        else:
            raise InputError("neither a losslessd capture, `mlnx_qos -i IF` or `dcb pfc|ets|app|buffer show dev IF` "
                             "output nor a host setup script (#! shell "
                             "script of mlnx_qos, sysfs and cma_roce_tos commands, or such steps one a line without "
                             "#!)", file=inp.path, line=1)
        self._apply(inp.path, _capture_steps(sections))

    def _bare(self, inp: Input) -> list[Section]:
        """A file of mlnx_qos output, maybe a terminal transcript: each prompt line (`$ cmd`, `# cmd`, `user@host:~$
        cmd`, or `+ cmd` as `set -x` traces it) starts a command whose output runs to the next one. Reads (mlnx_qos,
        cat of sysfs, cma_roce_tos -d, ethtool) are read as a capture's sections; writes (`echo V > /sys/...`,
        `cma_roce_tos -t`, `ip link set ... mtu`, `ethtool -A`) as a setup script's commands."""
        from . import script

        lines = inp.text.split("\n")
        prompts = [(i, m.group(1) if m else "") for i, line in enumerate(lines)
                   if (m := _PROMPT_LINE.match(line)) or _EMPTY_PROMPT.match(line)]
        tool = "mlnx_qos" if _is_bare_mlnx_qos(inp.text) else "dcb" if _is_bare_dcb(inp.text) else "sysfs"
        # (a dcb command line is read up to its first 512 characters: a line of thousands of `dcb -n` cost their
        # count squared to search)
        reads = _BARE_CMD.search if tool == "mlnx_qos" else lambda text: _DCB_SHOW_CMD.search(text[:512])
        first = next(((i, cmd) for i, cmd in prompts if reads(cmd)), None)
        if first is None:  # no prompt names the interface read: the whole file is the output of one run
            start, m = next(((i + 1, m) for i, line in enumerate(lines) if (m := reads(line))), (0, None))
            dumps, lines = _dump_sections(lines, start)
            for i in [i for i, line in enumerate(lines) if _UNNAMED_TOS.match(line)]:
                self._issue(f"`{lines[i].strip()}`: a TOS that names no RDMA device (a query script's label for "
                            "cma_roce_tos's output): whose default TOS it is, is not known, so it is not read; capture "
                            f"`{_TOS_COMMAND}` instead", inp.path, i + 1)
                lines[i] = ""
            named = sorted({p.group("iface") for d in dumps if (p := _PATH_RE.search(d.command)) and p.group("iface")})
            iface = m.group(1) if m else named[0] if len(named) == 1 else PLACEHOLDER_PORT
            how = (f"named from the `{lines[start - 1].strip()[:80]}` line" if m else
                   f"named from the sysfs paths it prints (`{dumps[0].command[4:84]}`)" if len(named) == 1 else
                   f"not in the file: the port is called {PLACEHOLDER_PORT!r}"
                   + (f" (its sysfs paths name {', '.join(named[:8])})" if named else ""))
            # (dcb's parameter names say which object each line shows, so one section reads them all)
            whole = f"mlnx_qos -i {iface}" if tool == "mlnx_qos" else f"dcb show dev {iface}"
            prompts = []
            sections = dumps if tool == "sysfs" else [Section(whole, "\n".join(lines[start:]), start + 1), *dumps]
            if tool == "mlnx_qos" and len(runs := _mlnx_qos_runs(lines[start:])) > 1:
                # several runs' outputs one after another (a loop's, a query script's): each read on a port of its
                # own, never one merged over the other; named by the `mlnx_qos -i IF` line before each where every
                # one has such a line, else `eth?1`, `eth?2` ...
                first_at = next(i for i, line in enumerate(lines[start:]) if _RUN_START.match(line))
                before = [m or _command_before(lines, start + first_at)]
                before += [_command_before(lines, start + at) for at, _ in runs[1:]]
                runs, named_runs = _mlnx_qos_runs(lines[start:]), all(before)  # (without the command lines)
                names = [c.group(1) if named_runs and c else f"{PLACEHOLDER_PORT}{k}"
                         for k, c in enumerate(before, start=1)]
                how = (f"{'named from the line before each of' if named_runs else 'not in the file:'}"
                       f" its {len(runs)} mlnx_qos outputs (lines {few([str(start + at + 1) for at, _ in runs])})"
                       f", read as ports {few(names)}")
                sections = [Section(f"mlnx_qos -i {name}", text, start + at + 1)
                            for name, (at, text) in zip(names, runs, strict=True)] + dumps
        else:
            how, sections = f"named from the `{lines[first[0]].strip()[:80]}` line", []
            prompts = self._before_prompts(lines, prompts[0][0], reads, inp.path) + prompts
        # Everything in the file is read; what a bare output cannot hold is unknown (SYS004 info, not SYS002).
        self._issue(f"bare {tool} output, not a losslessd capture: interface {how}; what it does not show (MTU, "
                    "speed, DCQCN NP/RP switches, cma_roce_tos) is unknown (collect with "
                    "examples/collect-host-capture.sh)", inp.path, (first[0] + 1) if first else 1, code="SYS004")
        ends = [i for i, _ in prompts[1:]] + [len(lines)] * bool(prompts)
        for (i, command), end in zip(prompts, ends, strict=True):
            ran = [each[1] for each in script.commands(command)]
            words = ran[0] if ran else None
            looped = [w for w in ran if w and _BARE_CMD.search(" ".join(w)) and not script.is_write(w)]
            if looped and len(looped) == len(ran) and (len(ran) > 1 or len(_mlnx_qos_runs(lines[i + 1:end])) > 1):
                # bash(1) for: the loop ran `mlnx_qos -i WORD` once per word, in order, each output after the last (a
                # loop over words known only at run time, `for i in $(ls ...)`, `while read i`, runs it once here)
                sections += self._loop_runs(looped, lines[i + 1:end], i + 1, command, inp.path)
            elif words and script.is_write(words):
                self._script_command(i + 1, words, command, inp.path)
            elif words and (filtered := _filtered_by(words)) and _read_in_sections(script.pipeline(words)[0]):
                # bash(1) Pipelines: what follows the prompt is the last command's output (`mlnx_qos -i IF | grep
                # trust` prints the matching lines only), not a whole output of the first; said of a command whose
                # output this reader reads only (`history | tail -3` loses nothing read)
                self._issue(f"`{command.strip()[:80]}`: its output is what `{filtered}` lets through, not the whole "
                            "output of the command before the pipe: that output is not read", inp.path, i + 1,
                            code="SYS004")
                if _sets_something(words):  # (`mlnx_qos -i IF --pfc ... | grep PFC`: the call ran, as in a script)
                    self._script_command(i + 1, words, command, inp.path)
            elif words:
                sections.append(Section(" ".join(_piped_output_only(words)), "\n".join(lines[i + 1:end]), i + 2))
            elif (read := _unpiped(command)) is not None:
                # a read a script would not run for its effect (`cat` of the RoCE QoS files: script.commands leaves it
                # out) is still a section of the transcript: its output was silently not read (ECN, traffic class)
                sections.append(Section(read, "\n".join(lines[i + 1:end]), i + 2))
        return sections

    def _before_prompts(self, lines: list[str], at: int, reads, path: str) -> list[tuple[int, str]]:
        """The commands typed without a prompt before a transcript's first prompt (line ``at``), each a line that
        names the port read as the no-prompt path names it: read as prompts. What comes before the first of them is
        said, not dropped: an mlnx_qos output there names no port (SYS002), other text is not read (SYS004)."""
        typed = [(i, lines[i].strip()) for i in range(at) if reads(lines[i])]
        lead = typed[0][0] if typed else at
        if (run := next((i for i in range(lead) if _RUN_START.match(lines[i])), None)) is not None:
            self._issue(f"the mlnx_qos output at line {run + 1}, before the first prompt, follows no `mlnx_qos -i IF` "
                        "line: which port printed it is not known, so it is not read (capture it with its command "
                        "line)", path, run + 1)
        elif any(line.strip() for line in lines[:lead]):
            self._issue(f"lines 1-{lead}, before the first prompt, are no command's output: not read", path, 1,
                        code="SYS004")
        return typed

    def _loop_runs(self, ran: list[list[str]], lines: list[str], at: int, command: str, path: str) -> list[Section]:
        """The sections of a prompt's loop of ``ran`` mlnx_qos reads whose output is ``lines`` (from line ``at``):
        one per run, in order, when the output holds as many runs; else none, said."""
        runs = _mlnx_qos_runs(lines)
        if len(runs) != len(ran):
            times = f"{len(ran)} times" if len(ran) > 1 else "once as written"
            self._issue(f"`{command.strip()[:80]}` runs mlnx_qos {times} but its output holds {len(runs)} "
                        "mlnx_qos output(s): which port printed which is not known, so none is read", path, at)
            return []
        return [Section(" ".join(_piped_output_only(words)), text, at + first + 1)
                for words, (first, text) in zip(ran, runs, strict=True)]

    def _script(self, inp: Input) -> None:
        """Apply a setup script's commands in order, over what earlier inputs set, the last write of each
        setting winning."""
        from . import script

        if script.branches(inp.text):
            self._issue("the script has if/case/while blocks (or a loop over words known at run time): each command "
                        "in them is read as if it ran once, in order "
                        "(what runs on the host depends on its conditions)", inp.path, None, code="SYS004")
        arms = _case_arms(inp.text)
        text, named = _arm_values(inp.text, arms)
        for at, name, value in named:
            self._issue(f"${name} read as {value} in the `{value})` arm of `case` (line {at}): the word matched the "
                        "pattern there (an ifupdown hook gets IFACE, the port it brings up)", inp.path, at,
                        code="SYS004")
        ran = set()
        for n, words, line in script.commands(text, inp.path):
            self._script_command(n, words, line, inp.path)
            ran.add(n)
        self.arms += [(inp.path, at, word, pattern) for at, stop, word, pattern, _, _ in arms
                      if any(at <= n < stop for n in ran)]

    def _script_command(self, n: int, words: list[str] | None, line: str, path: str) -> None:
        """One command of a setup script (or a write in a terminal transcript), as it would set the host."""
        from . import script

        src, sec = Source(file=path, line=n), Section(line, "", n + 1)
        try:
            if words is None:
                raise script.Skip("the shell cannot split it")
            if words[0] == script.UNCLOSED:
                raise script.Skip(f"{words[1]}, and runs neither this command nor anything after it, so none of it "
                                  "is read")
            if words[0] == script.ENDED:  # (exact: bash never runs the rest; an info, as what it sets is read)
                return self._issue(words[1], path, n, code="SYS004")
            if words[0] == script.NOTE:
                return self._issue(words[2], path, n, code=words[1])
            prog = os.path.basename(words[0])
            if prog in ("mlnx_qos", "cma_roce_tos", "dcb", "lldptool"):
                words = _piped_output_only(words)
            if prog == "mlnx_qos":
                options = script.mlnx_qos_options(words[1:])
                iface = dict(options).get("--interface")
                if iface and script.at_run_time(iface):
                    known, later = script.known_at_run_time([o for o in options if o[0] != "--interface"])
                    script.apply_mlnx_qos(_nic_port(iface, True, src), known, src)  # (raises Skip where mlnx_qos would)
                    names = [o for o, v in options if o != "--interface" and (o, v) != ("--dcbx", "os")]
                    # (one DCB PFC set carries the cable length and the PFC switches: see script.apply_mlnx_qos)
                    return self._port_at_run_time(iface, line, path, n, ", ".join(dict.fromkeys(names)), lambda port: (
                        script.forget(port, names + ["--pfc"] * ("--cable_len" in names), src)))
                if not iface or not self._attempt(iface, None, path, sec):
                    raise script.Skip("no interface (-i IF)")
                known, later = script.known_at_run_time([o for o in options if o[0] != "--interface"])
                script.apply_mlnx_qos(self.device.ports[iface], known, src)
                self.device.ports[iface].dcb_tool = "mlnx_qos"
                if dict(known).get("--dcbx") == "fw":  # mlnx_qos --dcbx fw: "firmware controlled" DCBX, willing
                    script.forget(self.device.ports[iface], ["--dcbx"], src)
                    self._issue(f"`{line[:80]}`: --dcbx fw hands {iface}'s DCBX to the NIC's firmware, willing: "
                                f"{script.PEER_TAKES}", path, n)
                if later:  # the rest of the call is read; what these set is unknown from here on
                    script.forget(self.device.ports[iface], later, src)
                    self._issue(f"`{line[:80]}`: {', '.join(later)} given a value known only at run time; what "
                                f"{'it sets' if len(later) == 1 else 'they set'} is unknown", path, n)
            elif prog == "ip":
                iface, mtu = script.ip_link_mtu(words)
                if script.at_run_time(iface):
                    return self._port_at_run_time(iface, line, path, n, "MTU",
                                                  lambda port: setattr(port, "mtu_bytes", None))
                if not self._attempt(iface, None, path, sec):
                    raise script.Skip(f"{iface!r} is not an interface name")
                self.device.ports[iface].mtu_bytes = mtu
                if mtu is None:
                    self._issue(f"`{line[:80]}`: the MTU is given a value known only at run time; it is unknown",
                                path, n)
            elif prog == "ethtool" and len(words) >= 3 and words[1] in ("-A", "--pause"):
                iface, settings = words[2], words[3:]
                if script.at_run_time(iface) and not len(settings) % 2:
                    return self._port_at_run_time(iface, line, path, n, "link-level pause",
                                                  lambda port: setattr(port, "link_pause", None))
                if len(settings) % 2 or not self._attempt(iface, None, path, sec):
                    raise script.Skip("only `ethtool -A IF [autoneg on|off] [rx on|off] [tx on|off]` is read")
                pairs = dict(zip(settings[::2], settings[1::2], strict=True))
                if not set(pairs) <= {"autoneg", "rx", "tx"} or not set(pairs.values()) <= {"on", "off"}:
                    raise script.Skip("only autoneg, rx and tx on|off are read")
                port = self.device.ports[iface]
                old = port.link_pause or LinkPause()
                port.link_pause = LinkPause(**{k: (pairs[k] == "on") if k in pairs else getattr(old, k)
                                               for k in ("autoneg", "rx", "tx")}, source=src)
            elif prog == "lldptool":
                self._lldptool(n, words, line, path)
            elif prog == "devlink" and [w for w in words[1:] if not w.startswith("-")][:1] == ["sb"] and "set" in words:
                # devlink-sb(8) pool/port pool/tc bind set: a switch ASIC's shared buffer (mlxsw spectrum_buffers.c);
                # mlx5's devlink ops (mlx5/core/devlink.c) offer none, so no ConnectX host script sets one
                raise InputError(f"`{line[:80]}` sets a shared buffer's pools (devlink-sb(8)), which a switch ASIC has "
                                 "and a ConnectX NIC has not: this script sets up a Linux switch (mlxsw, Spectrum "
                                 "switchdev), whose ports losslessd would read as host NICs; it reads no Linux "
                                 "switch's setup script (leave this file out of the host inputs)", file=path, line=n)
            elif prog == "dcb":
                from . import dcb
                iface = words[words.index("dev") + 1] if "dev" in words[:-1] else None
                if iface and script.at_run_time(iface):
                    dcb.apply(_nic_port(iface, True, src), words[1:], src)  # (raises Skip where it is not read)
                    names = dcb.changes(words[1:])
                    if names:
                        self._port_at_run_time(iface, line, path, n, ", ".join(_SETTING_NAMES[o] for o in names),
                                               lambda port: script.forget(port, names, src))
                    return
                if iface is None or not self._attempt(iface, None, path, sec):
                    if words[1:2] in (["show"], ["help"]) or words[2:3] in (["show"], ["help"]):
                        return
                    raise script.Skip("no interface (dev IF)")
                note = dcb.apply(self.device.ports[iface], words[1:], src)
                if dcb.changes(words[1:]):
                    self.device.ports[iface].dcb_tool = "dcb"
                if note:
                    self._issue(f"`{line[:80]}`: {note[1]}", path, n, code=note[0])
            elif prog == "cma_roce_tos":
                dev, given = _option(words[1:], "-d", None), _option(words[1:], "-t", None) or ""
                refused = "only `cma_roce_tos -d DEV -t TOS` (TOS 0-255) is read"
                if dev is None:
                    raise script.Skip(refused)
                self._roce_tos(dev, given, _int(given, 0, 255), refused, line, path, n)
            elif prog in ("mkdir", "rmdir") and all(sysfs.RDMA_CM_DIR.match(w) for w in words[1:]
                                                    if not w.startswith("-")):
                return  # (the RDMA device's directory its default_roce_tos is in: cma_configfs.c make_cma_dev)
            else:
                value, path_ = script.redirect(words)
                if holds_expression(path_):  # (left as written: a `#!/bin/sh` script's, see script.at_run_time)
                    if "|" not in words:  # (dash writes the file so named, which sysfs does not hold; bash, RHEL's
                        # /bin/sh, stops at an "ambiguous redirect", bash(1) REDIRECTION: nothing set either way)
                        raise script.Skip(f"its file `{path_[:80]}` holds a brace expression: run as /bin/sh, dash "
                                          "writes a file of that very name, which sysfs does not hold, and bash "
                                          "stops at an ambiguous redirect; nothing is set")
                    return self._write_at_run_time(value, path_, line, path, n)  # (`| tee`: dash's tee fails, bash's
                    # writes each file the expression makes)
                if sysfs.TOS_PATH.match(path_) or sysfs.QOS_PATH.match(path_):
                    return self._qos_write(value, path_, line, path, n)
                if script.at_run_time(value) or (script.at_run_time(path_) and not _named(path_)):
                    self._write_at_run_time(value, path_, line, path, n)
                    return
                if _SCRIPT_TCLASS.match(path_):
                    number = _int(value, 0, 255)
                    if number is None:
                        raise script.Skip(f"`{value}` is not a traffic class 0-255")
                    self._set_traffic_class(number, src)
                    return
                m = _PATH_RE.search(path_)
                if not (m and not m.group("dev") and m.group("attr") != "speed" and self._fact(m, value, path, sec, n)):
                    raise script.Skip(_unread_write(m, value, path_))
        except script.Skip as exc:
            self._issue(f"skipped `{line[:80]}`: {exc}", path, n)

    def _qos_write(self, value: str, target: str, line: str, file: str, n: int) -> None:
        """`echo V > .../rdma_cm/DEV/ports/N/default_roce_tos` (the RoCE ToS, as cma_roce_tos sets it), or `echo V >
        /sys/class/net/IF/qos/prio2buffer|buffer_size` (as mlnx_qos --prio2buffer / --buffer_size): read as the
        kernel reads it (see sysfs.py); a write it refuses sets nothing (a SYS002 says why, in the kernel's words)."""
        from . import script

        src, sec = Source(file=file, line=n), Section(line, "", n + 1)
        if m := sysfs.TOS_PATH.match(target):
            try:
                tos, refused = sysfs.kstrtou8(value + sysfs.NEWLINE), ""
            except sysfs.Refused as exc:
                tos, refused = None, f"the kernel refuses it ({exc}), so {script.rdma_device(m.group('dev'))[0]}'s " \
                    "RoCE ToS stays as it was"
            return self._roce_tos(m.group("dev"), value, tos, refused, line, file, n)
        m = sysfs.QOS_PATH.match(target)
        assert m is not None  # (see _script_command)
        option, what = ("--prio2buffer", "priority->buffer map") if m.group("file") == "prio2buffer" else \
            ("--buffer_size", "receive buffer sizes")
        iface = m.group("iface")
        if script.at_run_time(iface):
            return self._port_at_run_time(iface, line, file, n, what, lambda port: script.forget(port, [option], src))
        if not self._attempt(iface, None, file, sec):
            raise script.Skip(f"{iface!r} is not an interface name")
        port = self.device.ports[iface]
        if script.at_run_time(value):
            script.forget(port, [option], src)
            return self._issue(f"`{line[:80]}`: the {what} is given a value known only at run time; it is unknown",
                               file, n)
        try:
            values = sysfs.mlx5_list(value + sysfs.NEWLINE, 7 if option == "--prio2buffer" else None)
        except sysfs.Refused as exc:
            if exc.errno is None:  # (the kernel takes the number's low 32 bits: the file changes, to no value meant)
                script.forget(port, [option], src)
                return self._issue(f"`{line[:80]}`: {exc}, so {iface}'s {what} is set to a value no script means; it "
                                   "is unknown", file, n)
            raise script.Skip(f"the kernel refuses it ({exc}), so {iface}'s {what} stays as it was") from None
        script.apply_mlnx_qos(port, [(option, ",".join(map(str, values)))], src)

    def _port_at_run_time(self, iface: str, line: str, file: str, n: int, what: str, forget) -> None:
        """A command whose interface is known only at run time (`mlnx_qos -i $IF` where IF is `$1`, read, or a loop
        over `$(ls ...)`): what it sets is made unknown on each port read so far the name may be (``forget``), and is
        set on none (a port named `$IF` was made, which no host has, and the real port's earlier values stood)."""
        from . import script

        pattern = script.run_time_pattern(iface)
        reached = [name for name in self.device.ports if pattern.fullmatch(name)]
        for name in reached:
            forget(self.device.ports[name])
        shown = f"{', '.join(reached[:8])}{', ...' if len(reached) > 8 else ''}" if reached else \
            "none of those read so far" if self.device.ports else "no port is read so far"
        self._issue(f"`{line[:80]}`: its interface `{iface[:40]}` is known only at run time: what it sets ({what}) is "
                    f"unknown on each port it may name ({shown}), and set on none", file, n)

    def _roce_tos(self, dev: str, given: str, tos: int | None, refused: str, line: str, file: str, n: int) -> None:
        """The RoCE ToS ``given`` (read as ``tos``; None where it is refused, ``refused`` says why) set on the RDMA
        device ``dev``, by `cma_roce_tos -d DEV -t TOS` or a write to its default_roce_tos: a device known only at
        run time makes the ToS of each it may be unknown (see _device_at_run_time), a value known only then its
        own; a refused one sets nothing."""
        from . import script

        name, iface = script.rdma_device(dev)
        if script.at_run_time(name) and (tos is not None or script.at_run_time(given)):  # (a device named at run
            return self._device_at_run_time(dev, tos, line, file, n)  # time other than by its interface)
        if script.at_run_time(given):
            self.tos.pop(name, None)  # (no earlier value stands for it)
            return self._issue(f"`{line[:80]}`: the RoCE ToS is given a value known only at run time; it is unknown",
                               file, n)
        if tos is None:
            raise script.Skip(refused)
        if iface is not None:
            self.tos_of[name] = iface
        self._set_tos(name, tos, Source(file=file, line=n))

    def _device_at_run_time(self, dev: str, tos: int | None, line: str, file: str, n: int) -> None:
        """`cma_roce_tos -d $DEV -t TOS` where DEV is known only at run time (a loop over `$(ls /sys/class/infiniband)`,
        `$1`): the ToS of each RDMA device read so far the name may be is unknown, and none is set (a device named
        `$DEV` was, whose ToS then stood for the host's). A device a script names by its interface
        (`$(ls /sys/class/net/$IF/device/infiniband)`) may be any."""
        from . import script

        name = script.rdma_device(dev)[0]
        if name != dev:  # (a device named through its interface: any)
            reached = list(self.tos)
        else:
            pattern = script.run_time_pattern(dev)
            reached = [d for d in self.tos if pattern.fullmatch(d)]
        for d in reached:
            del self.tos[d]
        shown = f"{', '.join(reached[:8])}{', ...' if len(reached) > 8 else ''}" if reached else \
            "none of those read so far" if self.tos else "no device is read so far"
        value = "a value known only at run time" if tos is None else str(tos)
        self._issue(f"`{line[:80]}`: its RDMA device `{dev[:40]}` is known only at run time: the RoCE ToS it sets "
                    f"({value}) is unknown on each device it may name ({shown}), and set on none", file, n)

    def _lldptool(self, n: int, words: list[str], line: str, path: str) -> None:
        """`lldptool -T -i IF -V PFC|ETS-CFG|APP|IEEE-DCBX ARG=VALUE ...`: lldpad's DCBX configuration of IF, which
        lldpad pushes to the NIC (DCBNL) only while it runs with the NIC's DCBX under the host's control, and which a
        willing port replaces by its peer's (lldptool-pfc(8), lldptool-ets(8): "If set to yes and a peer TLV is
        received then the peer ... attributes will be used"). So what it sets on the NIC is not known from the script:
        each such line is named, and the settings it may change are unknown from there on (an earlier mlnx_qos value
        no longer stands for them). Its other uses (queries `-t`, LLDP `-L adminStatus=...`, the TLVs a host
        advertises: sysName, portDesc, mngAddr ..., a TLV's `enableTx` alone, the ETS recommendation ETS-REC it
        offers a peer) set nothing the NIC runs and are passed over."""
        from . import script

        args = words[1:]
        found = _lldptool_changes(args)
        if found is None:
            return
        tlv, names = found
        iface = _option(args, "-i", None)
        what = ", ".join(_SETTING_NAMES[name] for name in names)
        if iface and script.at_run_time(iface):
            return self._port_at_run_time(iface, line, path, n, what,
                                          lambda port: script.forget(port, names, Source(file=path, line=n)))
        if iface is None or not self._attempt(iface, None, path, Section(line, "", n + 1)):
            raise script.Skip(f"lldptool sets lldpad's {tlv} configuration ({what}) of an interface not named here "
                              "(-i IF); not read")
        script.forget(self.device.ports[iface], names, Source(file=path, line=n))
        self._issue(f"not read `{line[:80]}`: lldptool sets lldpad's {tlv} configuration, which lldpad applies to "
                    f"{iface} only while it runs with the port's DCBX under the host's control (and a willing port "
                    f"takes its peer's instead): what it sets on {iface} ({what}) is unknown from here",
                    path, n)

    def _write_at_run_time(self, value: str, target: str, line: str, file: str, n: int) -> None:
        """`echo $V > PATH`, or a PATH with a part known only at run time (`.../enable/$P`): what the write may set is
        unknown from here on, rather than an earlier line's value standing for it. (Paths: NVIDIA MLNX_OFED user
        manual, "Explicit Congestion Notification": /sys/class/net/IF/ecn/roce_np|roce_rp/enable/PRIO, roce_np/
        cnp_dscp and cnp_802p_prio, and the DCQCN parameters beside them; /sys/class/infiniband/DEV/tc/PORT/
        traffic_class.)"""
        from . import script

        src, sec = Source(file=file, line=n), Section(line, "", n + 1)
        what = "a value known only at run time" if script.at_run_time(value) else "a value"
        named = _named(target)
        if not named:
            what += " to a path known only at run time"
        m = _PATH_RE.search(target if named else script.run_time_sample(target))
        if _SCRIPT_TCLASS.match(target) or (m and m.group("tcdev")):  # one traffic class for the whole host
            self._set_traffic_class(None, src)
            return self._issue(f"`{line[:80]}`: writes {what} to the traffic class; it is unknown", file, n)
        if not named and not script.at_run_time(target):  # (a file written out that losslessd does not read)
            raise script.Skip(_unread_write(m, None, target))
        if named:
            if m is None or m.group("dev") or m.group("attr") == "speed":
                raise script.Skip(_unread_write(m, None, target))
            self._port(m.group("iface"), file, sec)
            forgotten = self._forget(m)
        else:  # each file of the ports known so far that the path's run-time parts may name
            if m is None and not _ECN_OR_MTU.search(target):  # (`> $FILE`: any file at all)
                raise script.Skip(f"`{target[:80]}` is known only at run time: which file it writes is not known")
            pattern = script.run_time_pattern(target)
            forgotten = [f for iface in list(self.device.ports) for candidate in self._sysfs_files(iface)
                         if pattern.fullmatch(candidate) and (m := _PATH_RE.search(candidate))
                         for f in self._forget(m)]
        self._issue(f"`{line[:80]}`: writes {what}; what it sets is unknown"
                    + (f" (was known: {', '.join(forgotten[:8])}{', ...' if len(forgotten) > 8 else ''})"
                       if forgotten else ""), file, n)

    def _sysfs_files(self, iface: str) -> list[str]:
        """The sysfs files of an interface a script's write sets (see _PATH), with the DCQCN parameters known of it."""
        base, port = f"/sys/class/net/{iface}", self.device.ports[iface]
        ecn = port.nic_ecn
        params = [("roce_np", k) for k in ecn.np_params] + [("roce_rp", k) for k in ecn.rp_params] if ecn else []
        return [f"{base}/mtu", f"{base}/ecn/roce_np/cnp_dscp", f"{base}/ecn/roce_np/cnp_802p_prio",
                *(f"{base}/ecn/{proto}/enable/{prio}" for proto in ("roce_np", "roce_rp") for prio in range(8)),
                *(f"{base}/ecn/{proto}/{name}" for proto, name in params)]

    def _forget(self, m: re.Match) -> list[str]:
        """The fact the sysfs file ``m`` names made unknown on its port; what was known there (file names)."""
        port = self.device.ports.get(m.group("iface"))
        ecn = port.nic_ecn if port else None
        name = m.group(0).split("/class/net/", 1)[-1]
        if port is None:
            return []
        if m.group("attr") == "mtu":
            known, port.mtu_bytes = port.mtu_bytes is not None, None
        elif ecn is None:
            known = False
        elif m.group("proto"):
            enabled = ecn.np_enabled if m.group("proto") == "roce_np" else ecn.rp_enabled
            known = enabled.pop(int(m.group("prio")), None) is not None
        elif m.group("cnp"):
            field = "cnp_dscp" if m.group("cnp") == "cnp_dscp" else "cnp_priority"
            known = getattr(ecn, field) is not None
            setattr(ecn, field, None)
        else:
            params = ecn.np_params if m.group("pproto") == "roce_np" else ecn.rp_params
            known = params.pop(m.group("param"), None) is not None
        return [name] if known else []

    # -- sections ----------------------------------------------------------------------------
    def _fact(self, m: re.Match, value: str, file: str, sec: Section, n: int) -> bool:
        """Store one sysfs value (a script's write); False when the value is not what that file holds."""
        ops: list[tuple] = []
        ok = _fact(ops, m, value, sec, n)
        self._apply(file, _compact(ops))
        return ok

    def _apply(self, file: str, ops: Iterable[tuple]) -> None:
        """Apply operations (("port", iface, line), ... each by its _op_ method) to this host, with ``file`` in the
        sources. A capture's sections each name their port and fact group (half of a capture's operations): the port
        already made and the group noted here, without a call each."""
        ports, attempted = self.device.ports, self.attempted
        for op in ops:
            kind = op[0]
            if kind == "attempt":
                attempted.setdefault(op[1], set()).add(op[2])
            elif kind != "port" or op[1] not in ports:
                _OPS[kind](self, file, op)

    def _op_port(self, file: str, op: tuple) -> None:
        ports = self.device.ports
        if op[1] not in ports:
            check_port_count(len(ports) + 1, file)  # as port_slot: while the ports are still few fields
            ports[op[1]] = _nic_port(op[1], True, line_source(file, op[2]))

    def _op_issue(self, file: str, op: tuple) -> None:
        self._issue(op[2], file, op[3], code=op[1])

    def _op_set(self, file: str, op: tuple) -> None:
        setattr(self.device.ports[op[1]], op[2], op[3])

    def _op_ecn(self, file: str, op: tuple) -> None:
        port = self.device.ports[op[1]]
        if port.nic_ecn is None:
            port.nic_ecn = _nic_ecn(line_source(file, op[2]))

    def _op_np(self, file: str, op: tuple) -> None:
        """("np" or "rp", iface, {priority: on}, line): DCQCN notification or reaction point switches."""
        ecn = self.device.ports[op[1]].nic_ecn
        assert ecn is not None  # (an "ecn" op comes first: _fact)
        if op[0] == "np":
            ecn.np_enabled.update(op[2])
            if ecn.np_source is None:
                ecn.np_source = line_source(file, op[3])
        else:
            ecn.rp_enabled.update(op[2])
            if ecn.rp_source is None:
                ecn.rp_source = line_source(file, op[3])

    _op_rp = _op_np

    def _op_params(self, file: str, op: tuple) -> None:
        ecn = self.device.ports[op[1]].nic_ecn
        assert ecn is not None  # (an "ecn" op comes first: _fact)
        for proto, name, value in op[2]:
            (ecn.rp_params if proto == "roce_rp" else ecn.np_params)[name] = value
        if ecn.params_source is None:
            ecn.params_source = line_source(file, op[3])

    def _op_ecnset(self, file: str, op: tuple) -> None:
        setattr(self.device.ports[op[1]].nic_ecn, op[2], op[3])

    def _op_qos(self, file: str, op: tuple) -> None:
        self.device.issues.extend(mlnx_qos.apply(self.device.ports[op[1]], op[2], file))

    def _op_qos_refused(self, file: str, op: tuple) -> None:
        self.qos_refused[op[1]] = (op[2], op[3])

    def _op_dcb(self, file: str, op: tuple) -> None:
        self.device.issues.extend(dcb_show.apply(self.device.ports[op[1]], op[2], file))

    def _op_tos(self, file: str, op: tuple) -> None:
        self._set_tos(op[1], op[2], line_source(file, op[3]))

    def _op_tclass(self, file: str, op: tuple) -> None:
        self._set_traffic_class(op[1], line_source(file, op[2]))

    def _op_ecn_absent(self, file: str, op: tuple) -> None:
        """("ecn_absent", iface, message, line): a read of mlx5's ecn/ files that found none (iface None: of the RDMA
        device's tc/N/traffic_class)."""
        self.ecn_absent.setdefault(op[1], []).append((op[2], file, op[3]))

    def _op_tos_attempted(self, file: str, op: tuple) -> None:
        self.tos_attempted = True

    def _op_ethspeed(self, file: str, op: tuple) -> None:
        self.ethtool_speed[op[1]] = op[2]

    def _op_pause(self, file: str, op: tuple) -> None:
        self.device.ports[op[1]].link_pause = _link_pause(op[2], op[3], op[4], line_source(file, op[5]))

    def _op_nccl(self, file: str, op: tuple) -> None:
        device = self.device
        device.nccl_env, device.nccl_env_source = dict(op[1]), line_source(file, op[2])

    def _op_lldp(self, file: str, op: tuple) -> None:
        device = self.device
        device.neighbors.extend(
            lldp.neighbor(nb.port, nb.remote_device, nb.remote_port, nb.origin, line_source(file, nb.source.line))
            for nb in op[1])
        device.issues.extend(
            ParseIssue(code=i.code, message=i.message, source=line_source(file, i.source.line))
            for i in op[2])

    def _set_traffic_class(self, value: int | None, source: Source) -> None:
        self.device.rdma_traffic_class, self.device.rdma_traffic_class_source = value, source

    # -- helpers -----------------------------------------------------------------------------
    def _attempt(self, iface: str, group: str | None, file: str, sec: Section) -> bool:
        """The interface's port, made when new; False for a name that is no interface. ``group``: the fact
        group a capture section reads (None for a script, which expects nothing)."""
        if not _IFACE.fullmatch(iface):
            return False
        self._port(iface, file, sec)
        if group is not None:
            self.attempted.setdefault(iface, set()).add(group)
        return True

    def _set_tos(self, dev: str, value: int, source: Source) -> None:
        """A write keeps the device's place among the others (the first device's value is the one checked)."""
        self.tos[dev] = (value, source, next(self._writes))

    def _tos_over_capture(self) -> None:
        """Drop captured ToS values a later script has overwritten. A script names an RDMA device by its
        interface (`$(ls /sys/class/net/IF/device/infiniband)`), a capture by name (mlx5_N) without saying
        whose it is. But a capture reads the RDMA devices of its own interfaces (collect-host-capture.sh finds
        them under each interface; `pull` takes the inventory's, listed for those interfaces), so a script that
        sets the ToS of every captured interface's device after the capture has overwritten every captured value."""
        named = {dev: w for dev, (_, _, w) in self.tos.items() if dev not in self.tos_of}
        scripted = {dev: w for dev, (_, _, w) in self.tos.items() if dev in self.tos_of}
        if named and scripted and set(self.attempted) <= {self.tos_of[d] for d in scripted} \
                and min(scripted.values()) > max(named.values()):
            for dev in named:
                del self.tos[dev]

    def _port(self, iface: str, file: str, sec: Section) -> Port:
        return port_slot(self.device.ports, iface, lambda: Port(name=iface, qos_configured=True, source=Source(
            file=file, line=max(sec.line - 1, 1))), Source(file=file))

    def _issue(self, message: str, file: str | None, line: int | None, code: str = "SYS002") -> None:
        self.device.issues.append(ParseIssue(code=code, message=message, source=Source(file=file, line=line)))

    def finish(self) -> Device:
        device, file = self.device, self.device.source.file if self.device.source else None
        for iface, port in device.ports.items():
            if port.speed_gbps is None and iface in self.ethtool_speed:
                port.speed_gbps = self.ethtool_speed[iface]
            absent = self.ecn_absent.get(iface, [])
            if absent and port.nic_ecn is None and port.nic_driver == "mlx5_core":
                port.nic_sysfs_ecn = False  # (the upstream driver's: no ecn/ directory at all, nothing to warn of)
            mlx5_ecn = port.mlx5_ecn()  # (else DCQCN is the driver's own setting: NIC003 says it is not verified)
            for message, at, line in absent if mlx5_ecn else []:
                self._issue(message, at, line)
            if not self.captured or iface not in self.attempted and iface not in self.qos_refused:
                continue  # bare output and scripts: only what they show or set is known, nothing expected
            tried = self.attempted.get(iface, set())
            # (dcb's PFC, ETS and app show mlnx_qos's; told without making the sets: 0.7 us of a host's 4.4 us here)
            dcb = not tried.isdisjoint(_DCB_WHAT) and "mlnx_qos" not in tried
            refusal = self.qos_refused.get(iface) if not dcb and "mlnx_qos" not in tried else None
            if refusal is not None:
                self._issue(f"`mlnx_qos -i {iface}` answered {refusal[0]!r}: {_EXPECTED['mlnx_qos'][1]} unknown; on a "
                            f"host without mlnx_qos capture `dcb pfc show dev {iface}`, `dcb ets show dev {iface}` and "
                            f"`dcb -N app show dev {iface}` (pull and examples/collect-host-capture.sh do)", file,
                            refusal[1])
            missing = [(command.format(iface), what) for group, (command, what) in _EXPECTED.items()
                       if group not in tried and not (group == "speed" and "ethtool" in tried)
                       and not (group.startswith("ecn/") and not mlx5_ecn)
                       and not (group == "mlnx_qos" and (dcb or refusal is not None))]
            if dcb:
                missing += [(f"{g.replace('-', ' ')} show dev {iface}", _DCB_WHAT[g])
                            for g in sorted(_DCB_WHAT.keys() - tried)]
            for command, what in missing:
                self._issue(f"no `{command}` section in the capture: {what} unknown", file, None)
        if any(port.mlx5_ecn() for port in device.ports.values()):
            for message, at, line in self.ecn_absent.get(None, []):
                self._issue(message, at, line)
        self._tos_over_capture()
        if self.tos:
            dev, (device.roce_tos, device.roce_tos_source, _) = next(iter(self.tos.items()))
            others = {f"{d}={v}" for d, (v, _, _) in self.tos.items() if v != device.roce_tos}
            if others:
                self._issue(f"cma_roce_tos differs between RDMA devices ({dev}={device.roce_tos}, "
                            f"{', '.join(sorted(others))}); only {dev}'s value is checked", file, device.roce_tos_source.line)
        elif self.captured and not self.tos_attempted:
            self._issue(f"no `{_TOS_COMMAND}` section in the capture: cma_roce_tos unknown", file, None)
        if not device.ports and self.arms:
            at, line, word, pattern = self.arms[0]
            names = pattern.split("|")
            which, after = "the port", pattern
            if _GLOB.search(pattern):  # (bash(1) Pattern Matching: `*`, `?`, `[...]`)
                which, after = "which port its glob pattern matched", "each port it matches"
            elif len(names) > 1:
                which, after = f"which of the {len(names)} ports its pattern names it is", " or ".join(names)
            self._issue(f"the script's settings run in the `{pattern})` arm of `case {word} in`: only the shell "
                        f"running it knows {which} (ifupdown runs a hook with IFACE set to the port it brings up), "
                        "so no port is known to carry what the arm sets and nothing is checked: lint the script "
                        f"after a capture of {after} (examples/collect-host-capture.sh)", at, line)
        elif not device.ports:
            what = ("holds no `mlnx_qos -i IF` or /sys/class/net/IF section" if self.captured else
                    "names no interface known before it runs (`mlnx_qos -i IF`, /sys/class/net/IF)")
            self._issue(f"the {'capture' if self.captured else 'input'} {what}: no interface to check", file, None)
        return device


_OPS = {name[len("_op_"):]: method for name, method in vars(_Host).items() if name.startswith("_op_")}


# -- what a capture says ------------------------------------------------------------------------------------
def _named(path: str) -> bool:
    """A sysfs path whose file is known, its run-time parts aside (the RDMA device a script looks up by its interface,
    `/sys/class/infiniband/$DEV/...`, one traffic class for the whole host); not one whose interface is known only at
    run time (`/sys/class/net/$IF/...`)."""
    from .script import at_run_time

    m = _PATH_RE.search(path)
    return bool(_SCRIPT_TCLASS.match(path) or (m and not (m.group("iface") and at_run_time(m.group("iface")))))


# `case "$IFACE" in` (any variable, quoted or braced) where a command starts, its arms on the lines after it or on the
# same line (`case "$IFACE" in eth0) CMD ;; esac`), and an arm's pattern of interface names, maybe globs (`ens1f0)`,
# `(mce0|mce1)`, `mlx5_*)`), its commands after it up to its `;;` or the `esac`: bash(1) Compound Commands, case.
_CASE_HEAD = lazy(_COMMAND_START + r"case[ \t]+(\"?\$\{?\w+\}?\"?)[ \t]+in(?![^\s#])[ \t]*")
_ARM = lazy(r"[ \t]*\(?([\w.:@*?\[\]-]{1,64}(?:\|[\w.:@*?\[\]-]{1,64}){0,15})\)")
_ESAC = lazy(r"(?:^|(?<=[\s;]))esac(?![^\s;#)])")
_ESAC_AT = lazy(r"[ \t]*esac(?![^\s;#)])")  # (where an arm's pattern may stand)
_GLOB = lazy(r"[*?\[]")


def _case_arms(text: str) -> list[tuple[int, int, str, str, int, int]]:
    """(first line, line past its last, the case's word, the pattern, where its commands start and end in ``text``) of
    each arm of a `case $VAR in` block whose pattern names interfaces."""
    arms: list[tuple[int, int, str, str, int, int]] = []
    word, arm = None, None  # (the open case's word; the open arm's first line, pattern and start)
    offset = 0
    for n, line in enumerate(text.split("\n"), start=1):
        at, esac, searched = 0, None, False  # (the line's next `esac`, searched again only once passed)
        while at <= len(line):
            if word is None:
                if (m := _CASE_HEAD.search(line, at)) is None:
                    break
                word, at = m.group(1), m.end()
            elif arm is None:
                if (m := _ESAC_AT.match(line, at)) is not None:
                    word, at = None, m.end()
                elif (m := _ARM.match(line, at)) is not None:
                    arm, at = (n, m.group(1), offset + m.end()), m.end()
                else:
                    break
            else:
                stop = line.find(";;", at)
                if not searched or (esac is not None and esac.start() < at):
                    esac, searched = _ESAC.search(line, at), True
                if stop < 0 and esac is None:
                    break
                close = stop if esac is None or 0 <= stop < esac.start() else esac.start()
                arms.append((arm[0], n + 1, word, arm[1], arm[2], offset + close))
                arm, at = None, close + (2 if close == stop else 0)
        offset += len(line) + 1
    return arms


_ARM_WORD = lazy(r'^"?\$\{?(\w+)\}?"?$')


def _arm_values(text: str, arms: list[tuple[int, int, str, str, int, int]]) -> tuple[str, list[tuple[int, str, str]]]:
    """``text`` with `$VAR` (`${VAR}`) written as NAME in the arm `NAME)` of a `case "$VAR" in` whose pattern is one
    name (bash(1) case: the word matched it, so that is VAR's value there), unless the arm assigns VAR or quotes with
    `'` (where `$VAR` is no expansion); and (line, VAR, NAME) of each arm so read. An arm of several names or a glob
    keeps `$VAR`: which port it is, the host's shell knows."""
    named, parts, done = [], [], 0
    for at, _, word, pattern, start, end in arms:  # (in the text's order, none overlapping)
        m = _ARM_WORD.match(word)
        if m is None or "|" in pattern or _GLOB.search(pattern):
            continue
        var, body = m.group(1), text[start:end]
        use = re.compile(rf"\$(?:\{{{var}\}}|{var}\b)")
        if re.search(rf"(?:^|[\s;&|(]){var}=", body) or "'" in body or not use.search(body):
            continue
        parts += [text[done:start], use.sub(pattern, body)]
        done = end
        named.append((at, var, pattern))
    return "".join(parts) + text[done:], named


# The first line of an `mlnx_qos -i IF` output (mlnx-tools python/mlnx_qos pretty_print: `DCBX mode:` in later
# releases, `Priority trust state|mode:` before, the PFC table where a release prints no trust).
_RUN_START = lazy(r"^[ \t]*(DCBX mode:|Priority trust (?:state|mode):|PFC configuration:)")


# spidernet-io's rdma-qos (`set-rdma-qos.sh q`) prints `======== show configuration for device $dev /
# ${RDMA_DEV}========` before each device's lines (its `mlnx_qos -i $dev` trust and PFC lines, then its sysfs files).
_QUERY_HEADER = lazy(r"^=+ show configuration for device ([^\s/=]{1,64}) / \S*?=+[ \t]*$")


def _command_before(lines: list[str], at: int) -> re.Match | None:
    """The line just before line ``at`` (blank lines between) that names the port of the mlnx_qos output at ``at``:
    an `mlnx_qos -i IF` command or a query script's header (_QUERY_HEADER), blanked; or None."""
    i = at - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    if i < 0 or (m := _BARE_CMD.search(lines[i]) or _QUERY_HEADER.match(lines[i])) is None:
        return None
    lines[i] = ""
    return m


def _mlnx_qos_runs(lines: list[str]) -> list[tuple[int, str]]:
    """(first line's index, text) of each mlnx_qos output in ``lines``: a new one starts where the line the first
    output started with comes again (what came between, a loop's `echo`, stays with the output before)."""
    starts, kind = [], None
    for i, line in enumerate(lines):
        if (m := _RUN_START.match(line)) is not None and kind in (None, m.group(1)):
            kind = m.group(1)
            starts.append(i)
    if len(starts) < 2:
        return [(0, "\n".join(lines))]
    starts[0] = 0
    return [(at, "\n".join(lines[at:stop])) for at, stop in zip(starts, [*starts[1:], len(lines)], strict=True)]


def _capture_steps(sections: list[Section]) -> list[tuple]:
    """The operations a capture's sections make on a host, in order. Of a command given twice, the last output
    counts (the others get an issue)."""
    names = [_command_name(s.command) for s in sections]
    last = {name: i for i, name in enumerate(names)}
    if len(last) == len(names):  # (no command given twice, as a capture's writer writes them: no section left out)
        return [op for sec in sections for op in _section_ops(sec)]
    steps: list[tuple] = []
    for i, sec in enumerate(sections):
        if last[names[i]] != i:
            steps.append(("issue", "SYS002", f"`{sec.command}` appears more than once; the last output is used",
                          sec.line - 1))
        else:
            steps.extend(_section_ops(sec))
    return steps


def _unpiped(command: str) -> str | None:
    """A prompt's command with its words one space apart, when it is one command whose output the terminal shows
    whole (no pipe, list or redirection of its output) and one this reader reads; else None."""
    if any(c in command for c in "|;&<>`$"):  # (a pipe, list, redirection or expansion: not one plain read)
        return None
    try:
        words = shell_words(command)
    except ValueError:
        return None
    words = unwrap(words)
    files = [w for w in words[1:] if not w.startswith("-")]
    if words[:1] == ["cat"] and (len(files) != 1 or any(c in files[0] for c in "*?[")):
        return None  # (cat prints several files' values one after another, unnamed: which is which is not known)
    return " ".join(words) if words and _read_in_sections(words) else None


def _read_in_sections(words: list[str]) -> bool:
    """Whether the output of the command ``words`` is one a capture's (or transcript's) section is read from: one
    _section_ops makes a change of (mlnx_qos -i IF, a cat or grep of the RoCE QoS files, cma_roce_tos -d, ethtool, ip
    -d link show, lldpctl)."""
    return bool(_section_ops(Section(" ".join(words), "", 1)))


@functools.lru_cache(maxsize=4096)  # a fleet's captures run the same few commands
def _command_name(command: str) -> str:
    """A command with its words one space apart: two sections of the same command are told by this."""
    return " ".join(command.split())


# -- what a section says, worked out once per distinct section ---------------------------------------------
# The programs whose refusals their own readers tell apart: mlnx_qos's (`dcb` shows the same: SYS002 says so), dcb's (a
# driver without the DCB buffer operations), and cat's or grep's `No such file or directory` (a sysfs file the driver
# does not have). Any other section the platform's matcher (Platform.refusal: the shells' wordings too) calls refused
# reads as not run.
_OWN_REFUSALS = frozenset({"mlnx_qos", "dcb", "cat", "grep"})


@functools.lru_cache(maxsize=4096)
def _section_ops(sec: Section) -> tuple[tuple, ...]:
    """The changes one capture section makes to a host, without the file name (the host applies them with
    its own file): ("port", iface, line) makes a port unless there is one, ("issue", code, message, line),
    ("set", iface, field, value) ... (see the _Host._op_* methods)."""
    out: list[tuple] = []
    program = _program(sec.command)
    if program is None:
        return ()  # not a command we read
    prog, args = program
    refused = PLATFORMS[PLATFORM].refuses(sec.output)
    if refused and prog not in _OWN_REFUSALS:  # (the tool is not there, or would not run: what it shows is unknown)
        if prog in ("ethtool", "ip") and args:  # (its interface's port is kept, as a read that ran)
            _attempt(out, args[-1], None, sec)
        return tuple(out)
    if prog == "mlnx_qos":
        iface = _option(args, "-i", "--interface")
        if iface and refused:  # (not installed: dcb read instead, its sections after)
            if _attempt(out, iface, None, sec):
                out.append(("qos_refused", iface, sec.output.strip().split("\n", 1)[0][:80], max(sec.line - 1, 1)))
        elif iface and _attempt(out, iface, "mlnx_qos", sec):
            out.append(("qos", iface, sec))
    elif prog == "dcb":
        _dcb_show(out, sec, args)
    elif prog == "cat" and args and args[-1].endswith("nccl.conf"):
        _nccl(out, sec)
    elif prog in ("cat", "grep"):
        operands = [a for a in args if not a.startswith("-")]
        _sysfs(out, sec, operands[1:] if prog == "grep" else operands)
    elif prog == "cma_roce_tos":
        _cma_roce_tos(out, sec, _option(args, "-d", None) or "mlx5_0")  # the script's default device
    elif prog == "ethtool" and len(args) == 1 and not args[0].startswith("-"):
        _ethtool(out, sec, args[0])
    elif prog == "ethtool" and len(args) == 2 and args[0] in ("-i", "--driver"):
        _driver(out, sec, args[1])
    elif prog == "ethtool" and len(args) == 2 and args[0] in ("-a", "--show-pause"):
        _pause(out, sec, args[1])
    elif prog == "ip" and "link" in args and "show" in args and ("-d" in args or "-details" in args):
        _maxmtu(out, sec, args[-1])
    # lldpd: the host's LLDP neighbours (refused, lldpd not installed: no table, not one of a format not read)
    elif prog == "lldpctl" or (prog == "lldpcli" and "neighbors" in args):
        out.append(("lldp", *lldp.parse(sec.output, "", sec.line)))
    return _compact(out)


@functools.lru_cache(maxsize=4096)
def _program(command: str) -> tuple[str, list[str]] | None:
    """(program, its arguments) of a section's command (`sudo -u root mlnx_qos ...`: the command it runs), None for no
    command; worked out once per command text: a section whose output is each host's own (its LLDP neighbours, its
    MAC address) is not cached by _section_ops, but its command is the fleet's. The list is shared: read, never
    changed."""
    try:
        tokens = shell_words(command)
    except ValueError:
        return None
    tokens = unwrap(tokens)
    return (os.path.basename(tokens[0]), tokens[1:]) if tokens else None


def _dcb_show(out: list, sec: Section, args: list[str]) -> None:
    """`dcb [OPTIONS] pfc|ets|app|buffer show dev IF [PARAMETER...]` (dcb(8); `show` may be abbreviated as dcb's
    matches() allows, `dcb show dev IF` is a bare output whose lines name their object): read by dcb_show."""
    from .dcb import split_command
    from .script import Skip

    try:
        obj, command, rest = split_command(args)
    except Skip:
        return
    if obj == "show" and command == "dev":  # (the section a bare output without its command line is read as)
        obj, command, rest = "", "show", ["dev", *rest]
    if obj not in ("pfc", "ets", "app", "buffer", "") or not command or not "show".startswith(command) or \
            rest[:1] != ["dev"] or len(rest) < 2:
        return
    if _attempt(out, rest[1], f"dcb-{obj or 'show'}", sec):
        out.append(("dcb", rest[1], sec))


def _compact(ops: list[tuple]) -> tuple[tuple, ...]:
    """Fewer operations, the same effect: a port (or its DCQCN record) already made earlier in the section is
    not made again, and runs of enable switches or DCQCN parameters of one interface become one operation."""
    out: list[tuple] = []
    made: set[tuple[str, str]] = set()
    for op in ops:
        kind = op[0]
        if kind in ("port", "ecn"):
            if (kind, op[1]) in made:
                continue
            made.add((kind, op[1]))
        elif kind in ("np", "rp") and out and out[-1][0] == kind and out[-1][1] == op[1]:
            out[-1] = (kind, op[1], {**out[-1][2], **op[2]}, out[-1][3])
            continue
        elif kind == "param":
            if out and out[-1][0] == "params" and out[-1][1] == op[1]:
                out[-1][2].append(op[2:5])
                continue
            op = ("params", op[1], [op[2:5]], op[5])
        out.append(op)
    return tuple(out)


def _attempt(out: list, iface: str, group: str | None, sec: Section) -> bool:
    """The interface's port, made when new; False for a name that is no interface. ``group``: the fact group
    the section reads."""
    if not _IFACE.fullmatch(iface):
        return False
    out.append(("port", iface, max(sec.line - 1, 1)))
    if group is not None:
        out.append(("attempt", iface, group))
    return True


def _issue_op(out: list, message: str, line: int | None, code: str = "SYS002") -> None:
    out.append(("issue", code, message, line))


def _sysfs(out: list, sec: Section, paths: list[str]) -> None:
    known = False
    for path in paths:
        if m := _GROUP_RE.search(path):
            group = "ecn/roce_np/cnp" if m.group(2).startswith("ecn/roce_np/cnp_") else m.group(2)
            _attempt(out, m.group(1), group, sec)
            known = True
        elif "/rdma_cm/" in path:
            out.append(("tos_attempted",))
            known = True
        elif "/class/infiniband/" in path and path.endswith("/traffic_class"):
            known = True
    if not known:
        return  # a command this parser does not read
    lines = [(n, line.strip()) for n, line in enumerate(sec.output.split("\n"), start=sec.line) if line.strip()]
    if not lines and len(paths) == 1 and (m := _PATH_RE.search(paths[0])) and m.group("tcdev"):
        out.append(("tclass", None, sec.line - 1))  # an empty file: not set
        return
    if not lines and paths and all(_OPTIONAL_GLOB.search(p) for p in paths):
        if all("traffic_class" in p for p in paths):  # every device's traffic_class empty: none set
            out.append(("tclass", None, sec.line - 1))
        return  # DCQCN parameters the NIC (or driver) does not expose: nothing to read, nothing wrong
    single = len(paths) == 1 and not any(c in paths[0] for c in "*?[")
    read, bad = 0, []
    for n, line in lines:
        if g := _GREP_LINE.match(line):
            m, value = _PATH_RE.search(g.group("path")), g.group("value")
        elif single and len(lines) == 1:
            m, value = _PATH_RE.search(paths[0]), line
        else:
            m, value = None, ""
        if m and _fact(out, m, value.strip(), sec, n):
            read += 1
        else:
            bad.append((n, line))
    cmd = f"`{sec.command}`"
    ecn = [m for p in paths if (m := _GROUP_RE.search(p)) and m.group(2).startswith("ecn/")]
    tclass = all("/class/infiniband/" in p and p.endswith("/traffic_class") for p in paths)
    if bad and not read and (tclass or len(ecn) == len(paths) and len({m.group(1) for m in ecn}) == 1) \
            and all(_ABSENT_LINE.fullmatch(b) for _, b in bad):
        # (MLNX_OFED mlx5's ecn/ files of one port, or its RDMA device's traffic_class, none there: a driver without
        # them, or an issue: _Host.finish)
        out.append(("ecn_absent", None if tclass else ecn[0].group(1), f"{cmd}: no value read ({bad[0][1][:100]!r})",
                    bad[0][0]))
    elif not lines:
        _issue_op(out, f"{cmd} printed nothing", sec.line - 1)
    elif not read:
        _issue_op(out, f"{cmd}: no value read ({bad[0][1][:100]!r})", bad[0][0])
    elif bad:
        _issue_op(out, f"{cmd}: {len(bad)} line(s) not understood and skipped, first: {bad[0][1][:80]!r}", bad[0][0])


def _fact(out: list, m: re.Match, value: str, sec: Section, n: int) -> bool:
    """One sysfs value; False when the value is not what that file holds."""
    if m.group("dev"):
        number = _int(value, 0, 255)  # IP TOS byte
        if number is not None:
            out.append(("tos", m.group("dev"), number, n))
        return number is not None
    if m.group("tcdev"):
        tc = _TCLASS.match(value)
        if tc is None or int(tc.group(1)) > 255:
            return False
        out.append(("tclass", int(tc.group(1)), n))
        return True
    iface = m.group("iface")
    out.append(("port", iface, max(sec.line - 1, 1)))
    if m.group("attr") == "mtu":
        # The netdev MTU is the IP MTU (ip-link(8): the L3 payload; the Ethernet header is not counted).
        mtu = _int(value, 68, 1 << 20)  # 68: IPv4 minimum MTU (RFC 791)
        out.append(("set", iface, "mtu_bytes", mtu))
        return mtu is not None
    if m.group("attr") == "speed":
        if value == "-1":  # the kernel's SPEED_UNKNOWN: link down or not negotiated
            _issue_op(out, f"{iface}: speed is -1 (link down?); port speed unknown", n)
            return True
        mbps = _int(value, 1, int(units.MAX_SPEED_GBPS * 1000))  # (speed_gbps refuses a faster one)
        out.append(("set", iface, "speed_gbps", units.speed_gbps(str(mbps)) if mbps else None))  # sysfs speed is Mb/s
        return mbps is not None
    out.append(("ecn", iface, n))
    if m.group("proto"):
        prio, on = int(m.group("prio")), _int(value, 0, 1)
        if prio > 7 or on is None:
            return False
        out.append(("np" if m.group("proto") == "roce_np" else "rp", iface, {prio: bool(on)}, n))
        return True
    if m.group("param"):
        number = _int(value, 0, 1 << 32)
        if number is None:
            return False
        out.append(("param", iface, m.group("pproto"), m.group("param"), number, n))
        return True
    if m.group("cnp") == "cnp_dscp":
        dscp = _int(value, 0, 63)
        out.append(("ecnset", iface, "cnp_dscp", dscp))
        return dscp is not None
    cnp_prio = _int(value, 0, 7)
    out.append(("ecnset", iface, "cnp_priority", cnp_prio))
    return cnp_prio is not None


def _unread_write(m: re.Match | None, value: str | None, path: str) -> str:
    """Why a script's `echo VALUE > PATH` is not read, naming what losslessd does not read: the file, or the value
    when the file is one it reads (None: the value is known only at run time)."""
    shown = path[:80]
    if m is None:
        return (f"{shown} is not a file losslessd reads (it reads a port's mtu, its ecn/roce_np and ecn/roce_rp files "
                "and qos/prio2buffer and qos/buffer_size, an RDMA device's tc/N/traffic_class and "
                "/sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_tos)")
    if m.group("dev"):
        return (f"a write to {shown} is not read (the RoCE ToS is read from a write to "
                "/sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_tos as such, or `cma_roce_tos -d DEV -t TOS`)")
    if m.group("attr") == "speed":
        # (Linux net/core/net-sysfs.c: speed is a read-only attribute, DEVICE_ATTR_RO: the kernel refuses the write)
        return f"{shown} only reports the port's link speed: a write to it sets nothing"
    if m.group("proto") and int(m.group("prio")) > 7:
        return f"{shown} names priority {m.group('prio')}, which is none of the 8 priorities 0-7"
    return f"`{(value or '')[:40]}` is not a value {shown} holds ({_expected(m)})"


def _expected(m: re.Match) -> str:
    """What the sysfs file ``m`` matched holds, as _fact reads it."""
    if m.group("tcdev"):
        return "a traffic class 0-255"
    if m.group("attr") == "mtu":
        return "an MTU 68-1048576"
    if m.group("proto"):
        return "0 or 1"
    if m.group("param"):
        return "a number"
    return "a DSCP value 0-63" if m.group("cnp") == "cnp_dscp" else "a priority 0-7"


def _cma_roce_tos(out: list, sec: Section, dev: str) -> None:
    out.append(("tos_attempted",))
    lines = [(n, line.strip()) for n, line in enumerate(sec.output.split("\n"), start=sec.line) if line.strip()]
    value = _int(lines[-1][1], 0, 255) if lines else None
    if value is None:
        _issue_op(out, f"`{sec.command}`: no ToS value read ({lines[-1][1][:100] if lines else 'no output'!r})",
                  lines[-1][0] if lines else sec.line - 1)
    else:
        out.append(("tos", dev, value, lines[-1][0]))


def _ethtool(out: list, sec: Section, iface: str) -> None:
    if not _attempt(out, iface, "ethtool", sec):
        return
    m = _ETHTOOL_SPEED.search(sec.output)
    try:
        if m is None:
            raise ValueError("no Speed line")
        out.append(("ethspeed", iface, units.speed_gbps(m.group(1))))  # "100000Mb/s"
    except (AttributeError, ValueError):
        _issue_op(out, f"`{sec.command}`: no speed ({m.group(1) if m else 'no Speed line'!r})", sec.line)


def _driver(out: list, sec: Section, iface: str) -> None:
    """`ethtool -i IF`: the NIC's driver, which says where its DCQCN is set (Port.mlx5_ecn)."""
    if not _attempt(out, iface, "ethtool-i", sec):
        return
    m = _DRIVER_LINE.search(sec.output)
    if m is not None:
        out.append(("set", iface, "nic_driver", m.group(1)))
    elif not _NO_DEVICE.search(sec.output):
        _issue_op(out, f"`{sec.command}`: no `driver:` line", sec.line)


def _pause(out: list, sec: Section, iface: str) -> None:
    if not _attempt(out, iface, "ethtool-a", sec):
        return
    found = {k: v == "on" for k, v in _PAUSE_LINE.findall(sec.output)}
    if not found:
        if not _NO_DEVICE.search(sec.output):
            _issue_op(out, f"`{sec.command}`: no Autonegotiate/RX/TX pause lines", sec.line)
        return
    out.append(("pause", iface, found.get("Autonegotiate"), found.get("RX"), found.get("TX"), sec.line))


def _maxmtu(out: list, sec: Section, iface: str) -> None:
    if not _attempt(out, iface, "ip-link", sec):
        return
    m = _maxmtu_at(sec.output)
    if m is None:
        if not _NO_DEVICE.search(sec.output):
            _issue_op(out, f"`{sec.command}`: no maxmtu (iproute2 prints it with -d)", sec.line)
        return
    out.append(("set", iface, "max_mtu_bytes", int(m.group(1))))


def _maxmtu_at(text: str) -> re.Match | None:
    """The first `maxmtu N` that starts a word (what ``\\bmaxmtu (\\d{2,7})\\b`` finds)."""
    for m in _MAXMTU.finditer(text):
        if m.start() == 0 or not _WORD.match(text, m.start() - 1):
            return m
    return None


def _nccl(out: list, sec: Section) -> None:
    """/etc/nccl.conf: NAME=VALUE lines (NCCL reads them at start, under the job's own environment). A missing
    file sets nothing."""
    env: dict[str, str] = {}
    for n, line in enumerate(sec.output.split("\n"), start=sec.line):
        if not line.strip() or line.lstrip().startswith("#") or "No such file" in line:
            continue
        if m := _NCCL_LINE.match(line):
            env[m.group(1)] = m.group(2)
        else:
            _issue_op(out, f"`{sec.command}`: {line.strip()[:80]!r} is not a NAME=VALUE line; skipped", n)
    out.append(("nccl", env, sec.line))


def _option(args: list[str], short: str, long: str | None) -> str | None:
    for i, arg in enumerate(args):
        if arg == short or arg == long:
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith(short) and len(arg) > len(short) and not arg.startswith("--"):
            return arg[len(short):]
        if long and arg.startswith(long + "="):
            return arg[len(long) + 1:]
    return None


def _int(text: str, lo: int, hi: int) -> int | None:
    return int(text) if _INT.fullmatch(text) and lo <= int(text) <= hi else None


# Programs that only read a pipe's data and print it or log it (their output goes nowhere a NIC setting is, unless
# they are given a file to write: `tee FILE`). `mlnx_qos -i IF --trust dscp | tee -a setup.log` runs mlnx_qos with its
# own words, up to the `|` (bash(1) Pipelines: "the standard output of command1 is connected via a pipe to the
# standard input of command2"), so the call sets what it sets.
_OUTPUT_READERS = frozenset({"grep", "egrep", "fgrep", "head", "tail", "cat", "less", "more", "logger", "awk", "sed",
                             "cut", "sort", "uniq", "wc", "column", "tr", "tee"})


def _piped_output_only(words: list[str]) -> list[str]:
    """The first command of a pipeline whose later commands only read its output (`mlnx_qos -i eth0 | grep trust`,
    `... 2>&1 | tee -a LOG`): its own words, before the first `|`. Words of any other line are returned as they are
    (a pipe into a command that may set something, or `tee` writing a sysfs or configfs file, is read as written)."""
    from . import script

    first, *later = script.pipeline(words)
    if not all(_output_reader(part) for part in later):
        return words
    return first if later else words


def _output_reader(part: list[str]) -> bool:
    """Whether a pipeline's ``part`` only reads its input (_OUTPUT_READERS; not `tee` writing a sysfs file)."""
    prog = os.path.basename(part[0]) if part else ""
    return prog in _OUTPUT_READERS and not (prog == "tee" and any(w.startswith(("/sys/", "/proc/")) for w in part))


# Programs that copy their input to their output whole: a read piped into them still prints the read's whole output.
_PASS_THROUGH = frozenset({"tee", "cat"})


def _filtered_by(words: list[str]) -> str | None:
    """The first later part of a pipeline that prints only part of its input (`grep`, `head`, `awk` ...), or None
    when the words are no pipeline or every later part copies its input whole (`| tee FILE`, `| cat`)."""
    from . import script

    return next((os.path.basename(part[0]) if part else "|" for part in script.pipeline(words)[1:]
                 if not part or os.path.basename(part[0]) not in _PASS_THROUGH), None)


def _sets_something(words: list[str]) -> bool:
    """Whether the first command of the pipeline ``words`` is an mlnx_qos call with an option besides the interface
    (and `-a`, which only shows)."""
    from . import script

    first = script.pipeline(words)[0]
    if not first or os.path.basename(first[0]) != "mlnx_qos":
        return False
    try:
        return any(name != "--interface" for name, _ in script.mlnx_qos_options(first[1:]))
    except script.Skip:  # (an option mlnx_qos does not take: the call is read, and named there)
        return True
