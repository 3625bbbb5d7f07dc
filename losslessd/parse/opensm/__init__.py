"""OpenSM, the InfiniBand subnet manager: one SM node's opensm.conf with its companions.

A device is one SM: its opensm.conf (as `opensm -c FILE` writes it, or trimmed by hand) and,
when given beside it, the QoS policy file (qos-policy.conf), the partitions file (partitions.conf)
and a saved ibdiagnet output (ibdiagnet2.log / ibdiagnet.log). Files are told apart by name,
else by content. See docs/infiniband.md.
"""

from __future__ import annotations

import functools
import os
import re

from ... import capture
from ...errors import InputError
from ...lazyre import lazy
from ...model import Device, DeviceKind, ParseIssue, Source
from ..base import Input
from . import names

PLATFORM = "opensm"

# (The options reader and the companions' readers are imported when an SM's files are parsed: sniffing, which every
# file of other platforms sniffed after OpenSM's goes through, needs only the option names, names.py.)
_PARTITION = lazy(r"^\s*[\w.\-]*\s*=\s*0[xX][0-9a-fA-F]+[^:;\n]*:", re.M)


@functools.cache
def _qos_section() -> re.Pattern[str]:
    from . import qos_policy

    return re.compile(rf"^\s*({'|'.join(qos_policy.SECTIONS)})\s*(#.*)?$", re.M)


def sniff(inp: Input) -> bool:
    """`opensm -c` output, or text whose lines are mostly OpenSM options (all of them in a short file); never a capture
    whose header names another platform (as no other platform's sniff takes one: detect goes by the header)."""
    named = capture.sniff_platform(inp.text)
    if named is not None and named != PLATFORM:
        return False
    head = inp.text[:65536]
    if names.BANNER in head:
        return True
    lines = [p for p in (line.split("#", 1)[0].split() for line in head.split("\n")[:400]) if p]
    # An option line is `name value` (options.py): a number, TRUE/FALSE, a path, a list joined by commas, `(null)`,
    # or a quoted string; a `qos` line of several bare words (EOS's `qos map dscp 26 to traffic-class 3`) is no sign.
    # (`name = value` is one too: OpenSM reads it, wrongly, and the parser names it.)
    shaped = [len(p) <= 2 or p[1][0] in "\"'" or p[1] == "=" for p in lines]
    known = sum(names.is_known(p[0]) and s for p, s in zip(lines, shaped, strict=True))
    # OpenSM's own name for its options file (config.h HAVE_DEFAULT_OPENSM_CONFIG_FILE /etc/opensm/opensm.conf):
    # hand-written ones mix in NVIDIA's options and names OpenSM does not know, so one option OpenSM reads is
    # enough when every line is shaped as an option; another platform's file under that name is not (EOS's
    # `daemon TerminAttr` begins with an option name, its `exec /usr/bin/TerminAttr ...` is no option line);
    # else the content rule, as for any name.
    if _options_name(inp.path) and known > 0 and all(shaped):
        return True
    return known > 0 and (known == len(lines) or known >= 5 and 2 * known >= len(lines))


def _options_name(path: str) -> bool:
    """OpenSM's options file by its name: opensm.conf, or a copy such as opensm-sm01.conf."""
    base = os.path.basename(path).lower()
    return base.endswith(".conf") and "opensm" in base


def parse(inputs: list[Input], name: str) -> Device:
    from . import ibdiagnet, options, partitions, qos_policy

    roles = [(inp, _role(inp)) for inp in inputs]
    confs = [inp for inp, role in roles if role == "options"]
    if not confs:
        raise InputError("no opensm.conf among these files: an OpenSM node needs its options file",
                         file=inputs[0].path if inputs else None)
    conf = confs[0]
    raw = options.read(conf.text, conf.path)
    if not any(options.is_known(key) for key in raw):
        raise InputError("no OpenSM option in this file (opensm.conf holds `option value` lines, as "
                         "`opensm -c FILE` writes them)", file=conf.path, line=1)
    sm, issues = options.build(raw)
    issues += [ParseIssue(code="SYS002", message=f"a second OpenSM options file for one SM; only {conf.path} is read",
                          source=Source(file=inp.path)) for inp in confs[1:]]
    for inp, role in roles:
        if role == "qos_policy":
            uses, found = qos_policy.read(inp.text, inp.path)
            sm.sl_uses += uses
            issues += found
        elif role == "partitions":
            parts, found = partitions.read(inp.text, inp.path)
            sm.partitions += parts
            issues += found
        elif role == "ibdiagnet":
            sm.credit_loops = ibdiagnet.read(inp.text, inp.path)
    return Device(name=name, kind=DeviceKind.subnet_manager, platform=PLATFORM, opensm=sm, issues=list(issues),
                  source=Source(file=conf.path))


def _role(inp: Input) -> str:
    """options | qos_policy | partitions | ibdiagnet: by file name (OpenSM's defaults), else by content."""
    base = os.path.basename(inp.path).lower()
    if "ibdiagnet" in base:
        return "ibdiagnet"
    if "partition" in base:
        return "partitions"
    if "qos" in base and "polic" in base:
        return "qos_policy"
    if _options_name(inp.path) or sniff(inp):
        return "options"
    if _qos_section().search(inp.text):
        return "qos_policy"
    from . import ibdiagnet

    if ibdiagnet.is_ibdiagnet(inp.text):
        return "ibdiagnet"
    if _PARTITION.search(inp.text):
        return "partitions"
    return "options"
