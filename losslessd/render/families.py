"""Platform families whose configuration language differs, told apart by the hardware model.

A family matters only for the sections whose commands differ; the other sections render for any model.
Each entry names the models it covers (a regular expression over the model as `show version`, the EOS
running-config header, `--model` or SONiC's hwsku give it) and the document that says the commands differ.
"""

from __future__ import annotations

import re

from ..errors import InputError
from ..model import Source
from ..printable import quoted
from ..records import record


@record(frozen=True)
class Family:
    name: str
    models: re.Pattern
    description: str


def _f(name: str, pattern: str, description: str) -> Family:
    return Family(name, re.compile(pattern, re.IGNORECASE), description)


FAMILIES: dict[str, tuple[Family, ...]] = {
    # Arista EOS: Sand (Arad/Jericho: 7020R, 7280R/E, 7500R/E, 7800R) switches schedule and mark ECN per `tx-queue`;
    # Trident/Tomahawk switches have separate unicast and multicast queues, `uc-tx-queue`/`mc-tx-queue` (Arista
    # AVD eos_cli_config_gen schema: qos_profiles.tx_queues vs qos_profiles.uc_tx_queues; EOS User Manual, QoS).
    "arista_eos": (
        _f("sand", r"^(?:DCS-|CCS-)?7(?:020|280|500|800)", "Arista Sand (7020R, 7280R, 7500R, 7800R): tx-queue"),
        _f("trident-tomahawk", r"^(?:DCS-|CCS-)?7(?:050|060|260|300|320|358|368|388)|^CCS-72[02]",
           "Arista Trident/Tomahawk (7050X, 7060X, 7260X, 7300X, 7358X, 7368X, 7388X, 720X/722X): uc-tx-queue"),
    ),
    # Cisco NX-OS: the Nexus 9000 has system-defined network-qos classes c-8q-nqN with `pause pfc-cos N` and
    # input queuing classes c-in-qN (Nexus 9000 NX-OS QoS Configuration Guide, PFC chapter); the Nexus 3000
    # (Trident 2 / Tomahawk 3100, 3200) takes user network-qos classes with `pause no-drop` and user queuing
    # classes (Nexus 3000 NX-OS QoS Configuration Guide; the SDN Nexus 3132 RoCE configuration).
    "cisco_nxos": (
        _f("n9k", r"^(?:cisco )?(?:N9K-|Nexus ?9\d*|C9[2-5]\d{2})", "Cisco Nexus 9000: c-8q-nqN, pause pfc-cos"),
        _f("n3k", r"^(?:cisco )?(?:N3K-C3[0-2]\d{2}|Nexus ?3[0-2]\d{2}|C3[0-2]\d{2})",
           "Cisco Nexus 3000 (3000-3200): user network-qos classes, pause no-drop"),
    ),
    # Juniper Junos: QFX5000 (Broadcom) schedulers size queue buffers as `buffer-size percent N | remainder` only;
    # QFX10000 and PTX also take `buffer-size temporal MICROSECONDS` (Junos CoS guide, "buffer-size (Schedulers)").
    "juniper_junos": (
        _f("qfx5000", r"^qfx5\d{2,3}", "Juniper QFX5000: buffer-size percent|remainder, no temporal"),
        _f("qfx10000-ptx", r"^(?:qfx10\d{3}|ptx\d+)", "Juniper QFX10000 / PTX: buffer-size temporal"),
    ),
}
# Models of a platform that no family renders, with why and what to do instead: their sections that differ between
# families (FAMILY_SECTIONS) are refused whatever --family says. The Nexus 7000 and 7700 queue by their I/O modules'
# CoS-based port types (`1p7q4t-out-pq1`, `8q2t-in-q1`: Cisco tech note 113556, Nexus 7000 QoS configuration example;
# Nexus 7000 Series NX-OS Quality of Service Configuration Guide, "Configuring Queuing and Scheduling"), and their
# network-qos policies are copies of the templates they ship (same guide, "Configuring Network QoS"): the Nexus
# 9000's c-8q-nqN and c-out-8q-qN classes the n9k family writes are not among them, so the switch rejects them.
UNRENDERED: dict[str, tuple[Family, ...]] = {
    "cisco_nxos": (
        _f("n7k", r"^(?:cisco )?(?:N7K-|N77-|Nexus ?7[07]\d{2}\b)",
           "a Cisco Nexus 7000/7700, whose queuing classes are its modules' port types (1p7q4t-out, 8q2t-in) and "
           "whose network-qos policies copy its own templates; configure its PFC, queuing and ECN by hand from "
           "Cisco's Nexus 7000 Series NX-OS Quality of Service Configuration Guide"),
    ),
}
# Sections whose commands differ between a platform's families (render.SECTIONS).
FAMILY_SECTIONS = {
    "arista_eos": frozenset({"scheduler", "ecn"}),
    "cisco_nxos": frozenset({"pfc", "scheduler", "ecn", "buffer"}),
    "juniper_junos": frozenset({"scheduler", "ecn"}),
}


# The EOS queue keyword of each family (FAMILIES["arista_eos"]: the AVD schema's tx_queues vs uc_tx_queues, the EOS
# User Manual's QoS chapter).
EOS_QUEUE_WORD = {"sand": "tx-queue", "trident-tomahawk": "uc-tx-queue"}


def family_of(platform: str, model: str | None) -> str | None:
    """The family a model belongs to on ``platform``; None when the model is unknown or matches none."""
    for fam in FAMILIES.get(platform, ()):
        if model and fam.models.search(model.strip()):
            return fam.name
    return None


def names(platform: str) -> list[str]:
    return [f.name for f in FAMILIES.get(platform, ())]


def known(family: str | None) -> None:
    """InputError for a --family no platform's families have, where no platform is named yet (fix, lint --fix: a
    fabric mixes platforms)."""
    if family is not None and not any(family in names(platform) for platform in FAMILIES):
        listed = ", ".join(f"{platform} {fam.name}" for platform, fams in FAMILIES.items() for fam in fams)
        raise InputError(f"--family {quoted(family)} is no command family losslessd renders (families: {listed})")


def resolve(platform: str, model: str | None, family: str | None = None) -> str | None:
    """``family`` when given (checked), else the model's; InputError for a family the platform does not have."""
    if family is not None:
        if family not in names(platform):
            known = ", ".join(names(platform)) or "none"
            raise InputError(f"--family {quoted(family)} is not a {platform} family (families: {known})")
        return family
    return family_of(platform, model)


FIX_MODEL = "give --model (the hardware model, e.g. from `show version`)"


def model_note(model: str | None, source: Source | None) -> str:
    """Where a model the family could not be told from was read ('' when not from a file: --model, --sku, or the
    device names none)."""
    if not model or source is None or not source.file:
        return ""
    return f" (read from {source.file}" + (f" line {source.line})" if source.line else ")")


def fix_model(model: str | None, source: Source | None) -> str:
    """What to change: the model where it was read, else --model."""
    there = "correct the model there if it is not the switch's, or " if model_note(model, source) else ""
    return there + FIX_MODEL


def where(source: Source | None) -> dict:
    return {"file": source.file, "line": source.line} if source is not None and source.file else {}


def require(platform: str, family: str | None, model: str | None, sections: frozenset[str],
            source: Source | None = None) -> None:
    """Refuse when the sections wanted differ between the platform's families and the family is unknown, or the model
    is one no family renders (UNRENDERED, whatever ``family`` says); a model read from a --device file (``source``)
    names that file and line."""
    needs = FAMILY_SECTIONS.get(platform, frozenset()) & sections
    if not needs:
        return
    if model and (none := next((f for f in UNRENDERED.get(platform, ()) if f.models.search(model.strip())), None)):
        rendered = "; ".join(f.description for f in FAMILIES[platform])
        raise InputError(f"{platform}: model {quoted(model)}{model_note(model, source)} is {none.description}. The "
                         f"{', '.join(sorted(needs))} commands losslessd renders are its families' ({rendered}), which "
                         "that switch would reject (whatever --family says)", **where(source))
    if family is not None:
        return
    seen = f"model {model!r}{model_note(model, source)} matches none of them" if model else "the model is not known"
    listed = "; ".join(f.description for f in FAMILIES[platform])
    raise InputError(f"{platform}: the {', '.join(sorted(needs))} commands differ between families ({listed}), and "
                     f"{seen}: {fix_model(model, source)} or --family {'|'.join(names(platform))}",
                     **(where(source) if model else {}))
