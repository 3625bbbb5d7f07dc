"""NVIDIA Cumulus Linux NVUE configuration: RoCE mode, trust, DSCP maps, PFC, ECN, egress scheduling, PFC watchdog.

Reads the `nv set ...` command list (`nv config show -o commands`) and the YAML/JSON tree of
`nv config show` / /etc/nvue.d/startup.yaml. What Cumulus does by default (RoCE lossless mode,
default-global profiles) is filled in, so each port shows its effective settings.

The configuration may also come inside a losslessd capture (docs/capture-format.md), with an
`lldpcli show neighbors` section that gives the switch's LLDP neighbours.
"""

from __future__ import annotations

import json
import re

from ... import capture
from ...errors import InputError
from ...lazyre import lazy
from ...model import Device, ParseIssue
from .. import lldp
from ..base import SHELL_PROMPT, SNIFF_CHARS, Input, IssueList, answered, last_sections, sniff_text

PLATFORM = "nvidia_cumulus"

_COMMANDS = lazy(r"^[ \t]*(\S*@\S*[$#][ \t]*)?(sudo[ \t]+)?nv set \S", re.MULTILINE)
# startup.yaml and `nv config show` start with a header holding the NVUE API version.
_TREE = lazy(r"^[ \t]*(- )?\"?header\"?:.*$[\s\S]{0,400}nvue-api-version", re.MULTILINE)
# Top-level objects of the NVUE tree (NVUE reference: `nv set <object> ...`): a bare tree needs one of them.
NVUE_ROOT = ("interface", "qos", "system", "router", "vrf", "bridge", "evpn", "nve", "mlag", "service", "acl")
# The prompt line the Cumulus Linux user guide prints before the startup.yaml it shows (`sudo cat
# /etc/nvue.d/startup.yaml`, `nv config find`), after blank or comment lines.
_BLANKS = r"(?:[ \t]*(?:#.*)?\n)*"
_TREE_PROMPT_LINE = rf"{SHELL_PROMPT.pattern}[ \t]*(?:sudo[ \t]+)?(?:cat|nv[ \t]+config)[ \t][^\n]*"
# /etc/nvue.d/startup.yaml as the guide prints it: the `- set:` item alone, without the header item. Known by `- set:`
# opening the file (after an optional prompt line) with one of NVUE's root objects as its first key.
_SET_TREE = lazy(rf"\A{_BLANKS}(?:{_TREE_PROMPT_LINE}\n)?- set:[ \t]*\n{_BLANKS}[ \t]+(?:{'|'.join(NVUE_ROOT)}):")
# That prompt line: blanked (line numbers kept), not read as YAML.
_TREE_PROMPT = lazy(rf"\A({_BLANKS}){_TREE_PROMPT_LINE}(?=\n- set:)")
_CONFIG = lazy(r"^nv\s+config\s+show(\s+-o\s+(commands|json|yaml))?\s*$")
_LLDP = lazy(r"^(lldpcli\s+show\s+neighbors?|lldpctl)\b")


def sniff(inp: Input) -> bool:
    """An NVUE capture, `nv set` commands, or an NVUE YAML/JSON tree (its header names nvue-api-version, or it is
    startup.yaml's `- set:` item alone)."""
    return sniff_text(inp, PLATFORM, _COMMANDS, _TREE, _SET_TREE)


def parse(inputs: list[Input], name: str) -> Device:
    paths, neighbors, unsets = [], [], []
    issues: list[ParseIssue] = IssueList()  # (read() adds the `nv set` lines it skips: capped as well)
    for inp in inputs:
        text = inp.text
        if capture.is_capture(text):
            name, text, found, problems = _from_capture(inp)
            neighbors.extend(found)
            issues.extend(problems)
        got, problems, unset = _paths(Input(inp.path, text))
        paths.extend(got)
        unsets.extend(unset)
        issues.extend(problems)
    if not paths and unsets:
        undone = unsets[-1][1]  # (the last unset that dropped a path)
        raise InputError("every `nv set` line was undone by a later `nv unset` (the last at this line): no setting is "
                         "left to check", file=undone.file, line=undone.line)
    if not paths:
        skipped = [i for i in issues if i.source is not None]
        if skipped:  # `nv set` lines were seen (the sniff), each skipped: say why rather than "none found"
            first = next((i for i in skipped if "not an `nv set` command" not in i.message), skipped[0])
            raise InputError(f"no `nv set` command could be read ({len(skipped)} line(s) skipped): {first.message}",
                             file=first.source.file if first.source else inputs[0].path,
                             line=first.source.line if first.source else 1)
        for inp in inputs:  # (a switchd QoS or NCLU file given with --format: named, as when the platform is unknown)
            cumulus_file_not_read(inp)
        raise InputError("no `nv set` command or NVUE configuration tree found", file=inputs[0].path, line=1)
    from .build import build  # the reader and builder: when parsing, not when sniffing other platforms' files
    from .reader import read

    device = build(read(paths, issues, unsets), PLATFORM, name, inputs[0].path)
    device.neighbors = neighbors
    return device


# Cumulus Linux's switchd QoS files (/etc/cumulus/datapath/qos/qos_features.conf and /etc/mlx/datapath/qos/
# qos_infra.conf; traffic.conf and datapath.conf before 5.0: the Cumulus Linux user guide, "Quality of Service" and
# "Buffer and Queue Management"): `key.path = value` lines such as `traffic.packet_priority_source_set = [dscp]`,
# `pfc.pfc_port_group.cos_list = [3]`, `priority_group.service.cos_list = [3]`, `ingress_service_pool.0.percent = 50`.
_DATAPATH_LINE = lazy(r"^[ \t]*(traffic|pfc|link_pause|ecn|ecn_red|default_ecn_red_conf|default_ecn_conf|"
                            r"priority_group|cos_egr_queue|ingress_service_pool|egress_service_pool)\.[\w.]+[ \t]*=",
                            re.MULTILINE)


# NCLU, Cumulus Linux's command line before NVUE (Cumulus Linux 3.x/4.x user guide, "Network Command Line Utility":
# `net add|del ...` then `net commit`; `net show configuration commands` prints a switch's as such lines; removed in
# 5.0): its own words, at the margin.
_NCLU_LINE = lazy(r"^net (?:add|del) \S", re.MULTILINE)


def cumulus_file_not_read(inp: Input) -> None:
    """A Cumulus Linux file losslessd does not read given as a device, a switchd QoS file (_DATAPATH_LINE) or NCLU
    commands (_NCLU_LINE): raise InputError at its first such line, saying that losslessd reads a Cumulus switch's
    NVUE configuration (rather than "cannot tell which platform")."""
    head = inp.text[:SNIFF_CHARS]
    if (m := _DATAPATH_LINE.search(head)) is not None:
        what = "a Cumulus Linux switchd QoS file (qos_features.conf / qos_infra.conf, traffic.conf before 5.0)"
    elif (m := _NCLU_LINE.search(head)) is not None:
        what = "Cumulus Linux NCLU commands (`net add`/`net del`, the command line of releases before 5.0)"
    else:
        return
    raise InputError(f"{what}, which losslessd does not read: lint a Cumulus switch's NVUE configuration (`nv config "
                     "show -o yaml`, /etc/nvue.d/startup.yaml, or its `nv set` commands; NVUE from Cumulus Linux 4.4)",
                     file=inp.path, line=inp.text.count("\n", 0, m.start()) + 1)


def is_commands(text: str) -> bool:
    """Whether ``text`` holds `nv set` commands (else it is read as an NVUE YAML/JSON tree)."""
    return _COMMANDS.search(text) is not None


def _paths(inp: Input) -> tuple[list, list[ParseIssue], list]:
    """The input's paths, the issues of its lines and the `nv unset` lines that dropped one (reader.Commands; a
    YAML/JSON tree has none)."""
    from .reader import command_paths, tree_paths

    if is_commands(inp.text):
        return command_paths(inp.text, inp.path)
    text = _TREE_PROMPT.sub(lambda m: m.group(1), inp.text, count=1)
    try:
        return tree_paths(text, inp.path), [], []
    except InputError as exc:  # yamlread.compose: the YAML, its nesting or its aliases
        if (second := _second_document(text, exc)) is not None:
            raise InputError("this file holds several YAML/JSON documents (the second starts here): `nv config show` "
                             "and startup.yaml are one document a switch, and losslessd reads one switch a file and "
                             "does not merge two: split it into one file per switch", file=inp.path,
                             line=second) from None
        raise InputError(f"not NVUE commands, nor readable YAML/JSON: {exc.message}", file=inp.path,
                         line=exc.line or 1) from None


def _second_document(text: str, exc: InputError) -> int | None:
    """The line where a second document starts in ``text``, which compose refused with ``exc``: a YAML `---` after a
    first document (PyYAML: "but found another document"), or a JSON value after a whole first one (`nv config show
    -o json` pasted twice); None for any other refusal."""
    if "but found another document" in exc.message:
        return exc.line
    start = len(text) - len(text.lstrip())
    if text[start:start + 1] not in ("{", "["):
        return None
    try:
        _, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    rest = len(text) - len(text[end:].lstrip())
    return text.count("\n", 0, rest) + 1 if text[rest:rest + 1] in ("{", "[") else None


def _from_capture(inp: Input) -> tuple[str, str, list, list[ParseIssue]]:
    """(device name, config text with the capture's line numbers, LLDP neighbours, issues)."""
    header, sections = capture.for_platform(inp.text, inp.path, PLATFORM)
    last = last_sections(sections, {"config": _CONFIG}) | last_sections(answered(sections, PLATFORM), {"lldp": _LLDP})
    if "config" not in last:
        raise InputError("this NVUE capture has no `nv config show` section", file=inp.path, line=1)
    neighbors, issues = lldp.parse(last["lldp"].output, inp.path, last["lldp"].line) if "lldp" in last else ([], [])
    return header["device"], capture.section_text(last["config"]), neighbors, issues
