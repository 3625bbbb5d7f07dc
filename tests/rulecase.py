"""Rule case files: tests/rule_cases/<CODE>.yaml hold passing and failing devices for one rule.

Format:
    policy: roce-dscp26            # shipped name (default roce-dscp26)
    policy_overrides: {...}        # optional, deep-merged into the policy
    cases:
      - name: what this shows
        format: arista_eos         # with `config:` (raw device text), or give `device:` (model dict)
        config: |
          ...
        expect:                    # findings of this rule; [] for a passing case
          - {port: Ethernet1, key: "3", severity: error, message_contains: "PFC"}
    switch_port_defaults: {...}    # optional: fields every switch port of a `device:` model gets unless it sets
                                   # them (e.g. the class/priority/queue maps a SONiC parser fills)
Fabric-scope cases list several `devices:` and may add topology keys (losslessd.topology, as in
topology.yaml): `links: ["leaf1:Ethernet0 <-> gpu01:eth0"]`, `routing: updown`, `tiers: {...}`.
Without them the links are those the devices report (Device.neighbors) and there is no routing.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from losslessd import topology
from losslessd.docpos import merge
from losslessd.lint.engine import run
from losslessd.lint.finding import Finding
from losslessd.lint.registry import lookup
from losslessd.model import Device, Fabric
from losslessd.parse import parser_for
from losslessd.parse.base import Input
from losslessd.platforms import resolve_format
from losslessd.policy import Policy, load_policy

CASES_DIR = Path(__file__).resolve().parent / "rule_cases"


def load_cases(code: str) -> dict:
    return yaml.safe_load((CASES_DIR / f"{code}.yaml").read_text(encoding="utf-8"))


def policy_for(spec: dict) -> Policy:
    base = load_policy(spec.get("policy", "roce-dscp26"))
    if not spec.get("policy_overrides"):
        return base
    data = merge(base.model_dump(mode="json"), spec["policy_overrides"])
    return Policy(**data)


def device_for(case: dict, index: int, port_defaults: dict | None = None) -> list[Device]:
    devices = []
    for n, entry in enumerate(case.get("devices") or [case]):
        if "device" in entry:
            data = entry["device"]
            if port_defaults and data.get("kind") == "switch":
                data = {**data, "ports": {name: {**port_defaults, **port} for name, port in data.get("ports", {}).items()}}
            devices.append(Device.model_validate(data))
        else:
            platform = resolve_format(entry["format"]).id
            name = entry.get("name", f"case{index}-{n}")
            devices.append(parser_for(platform).parse([Input(f"{name}.cfg", entry["config"])], name))
    return devices


def fabric_for(spec: dict, case: dict, index: int) -> tuple[Fabric, Policy]:
    """The case's devices, with its topology applied, and the policy it is linted against."""
    fabric = Fabric(devices={d.name: d for d in device_for(case, index, spec.get("switch_port_defaults"))})
    topo = {k: case[k] for k in ("links", "routing", "tiers") if k in case}
    topology.apply(fabric, topology.from_data(topo, file="case.yaml") if topo else None)
    return fabric, policy_for({**spec, **{k: case[k] for k in ("policy", "policy_overrides") if k in case}})


def findings_for(code: str, spec: dict, case: dict, index: int) -> list[Finding]:
    # With PFC004 and PFC006 beside it, as in a default run: a rule they subsume (a lossy-mode switch; one with no
    # lossless setting) stays silent only where they run (Context.selected); alone (--select) it reports its own.
    covers = [c for c in ("PFC004", "PFC006") if c != code]
    result = run(*fabric_for(spec, case, index), [lookup(c) for c in [code, *covers]])
    # The engine turns a rule that raises into a SYS900 finding; a passing case must not hide one.
    crashed = [f.message for f in result.findings if f.code == "SYS900"]
    assert not crashed, crashed
    return [f for f in result.findings if f.code == code]


def matches(finding: Finding, want: dict) -> bool:
    for field in ("port", "key", "severity", "device"):
        if field in want and str(getattr(finding, field).value if field == "severity" else getattr(finding, field)) != str(want[field]):
            return False
    if "message_contains" in want and want["message_contains"] not in finding.message:
        return False
    if "unverified" in want and finding.unverified != want["unverified"]:
        return False
    return True
