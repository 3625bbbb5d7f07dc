"""Linting real configs written by SONiC and Arista AVD (../shared/corpus): no SYS findings, no
false errors under the policy the config was written for, and DSCP 26 reported where it is lossy."""

from __future__ import annotations

import pytest

from losslessd.api import lint
from losslessd.lint.finding import Severity

SONIC = ["sonic/mellanox4600c-c64", "sonic/arista7260-t0", "sonic/mellanox2410", "sonic/utilities/config_db.json"]
ALL = [*SONIC, "eos/avd-qos.cfg"]


# What a corpus file itself leaves open, said as SYS002 at its line: the AVD syntax test binds a qos policy-map it
# never defines (test_qos_policy_v1, line 5) and one whose classes match on ACLs (pmap_test1, class at line 259);
# Port-Channel3's service-profile, `qos trust cos` and `qos cos 2` (lines 172-174: whether its members take them is
# in no Arista document read).
KNOWN_SYS = {"eos/avd-qos.cfg": [("SYS002", 5), ("SYS002", 172), ("SYS002", 173), ("SYS002", 174), ("SYS002", 259)],
             # its QUEUE references are written `[TABLE|name]`, which orchagent refuses from 202111 on, beside names
             # alone, which it refuses up to 202106, and it names no release (no VERSIONS): one info, at the first one
             "sonic/utilities/config_db.json": [("SYS004", 2620)],
             # SONiC's template renders name no release: their names alone are read as 202111 on reads them, said once
             # (at the first reference read: buffers.json's first BUFFER_PROFILE pool)
             "sonic/mellanox4600c-c64": [("SYS004", 96)], "sonic/arista7260-t0": [("SYS004", 141)],
             "sonic/mellanox2410": [("SYS004", 92)]}


@pytest.mark.parametrize("rel", ALL)
@pytest.mark.parametrize("policy", ["roce-dscp26", "sonic-azure", "pfc-only"])
def test_corpus_parses_without_sys_findings(corpus, rel, policy):
    result = lint([corpus / rel], policy)
    assert len(result.fabric.devices) == 1
    assert sorted((f.code, f.source.line) for f in result.findings if f.code.startswith("SYS")) == \
        KNOWN_SYS.get(rel, [])


@pytest.mark.parametrize("rel", SONIC)
def test_azure_policy_gives_no_pfc_or_mapping_errors_where_pfc_is_enabled(corpus, rel):
    result = lint([corpus / rel], "sonic-azure", select_codes=["PFC", "MAP"])
    device = next(iter(result.fabric.devices.values()))
    pfc_ports = {p.name for p in device.ports.values() if p.pfc_enabled}
    bad = [(f.code, f.port, f.message) for f in result.findings
           if f.port in pfc_ports and f.severity != Severity.info]
    assert bad == []


@pytest.mark.parametrize("rel", ["sonic/mellanox4600c-c64", "sonic/arista7260-t0"])
def test_dscp26_policy_reports_dscp26_lossy_on_azure_config(corpus, rel):
    result = lint([corpus / rel], "roce-dscp26", select_codes=["MAP001"])
    errors = [f for f in result.findings if f.severity == Severity.error]
    device = next(iter(result.fabric.devices.values()))
    pfc_ports = {p.name for p in device.ports.values() if p.pfc_enabled}
    assert {f.port for f in errors} == pfc_ports  # every lossless-configured port, nothing else
    assert all("RoCE DSCP 26 is not lossless" in f.message for f in errors)
