"""SONiC references written `[TABLE|name]`, as older SKU templates write them (sonic-buildimage 086b03bd70f9:
DellEMC-Z9432f-O32 and Celestica Midstone-200i qos.json.j2 / buffers.json.j2, under keys joining every port with ','),
read by release (docs/real-configs.md "Session 42, part f").

sonic-swss orch.cpp parseReference required the brackets up to the 202106 branch ("Must be surrounded by [ ]") and
refuses them from 202111 on ("Must not be surrounded by [ ]", a3fdaf41c / da49332b8, pull request 1754): the entry is
retried and never applied. sonic-utilities db_migrator (202111: version_2_0_2 -> version_2_0_3,
migrate_qos_fieldval_reference_format) strips them when it upgrades an older CONFIG_DB, not from a template render. A
key listing ports is split on ',' by qosorch.cpp handlePortQosMapTable and bufferorch.cpp processPriorityGroup
(tokenize(key, list_item_delimiter)), so the list keys of those templates are read port by port (as before)."""

from __future__ import annotations

import json

from losslessd.parse.base import Input
from losslessd.parse.sonic import parse

# Written by us in the shape of the Z9432f-O32 template: one PORT_QOS_MAP key for the ports, references in brackets.
OLD_FORM = {
    "DSCP_TO_TC_MAP": {"DEFAULT": {str(d): ("3" if d == 26 else "0") for d in range(64)}},
    "TC_TO_QUEUE_MAP": {"DEFAULT": {str(t): str(t) for t in range(8)}},
    "TC_TO_PRIORITY_GROUP_MAP": {"DEFAULT": {str(t): ("3" if t == 3 else "0") for t in range(8)}},
    "PORT_QOS_MAP": {"Ethernet0,Ethernet8": {"dscp_to_tc_map": "[DSCP_TO_TC_MAP|DEFAULT]",
                                             "tc_to_queue_map": "[TC_TO_QUEUE_MAP|DEFAULT]",
                                             "tc_to_pg_map": "[TC_TO_PRIORITY_GROUP_MAP|DEFAULT]",
                                             "pfc_enable": "3"}},
}


def _parse(version: str | None):
    db = dict(OLD_FORM)
    if version:
        db["VERSIONS"] = {"DATABASE": {"VERSION": version}}
    return parse([Input("qos.json", json.dumps(db, indent=1))], "sw")


def _said(device) -> list:
    return [i for i in device.issues if "old `[TABLE|name]` form" in i.message]


def test_a_release_that_takes_bracketed_references_reads_them_without_a_word():
    device = _parse("version_2_0_2")  # db_migrator's 202012 / 202106 version
    assert not _said(device)
    assert device.ports["Ethernet8"].dscp_to_tc[26] == 3 and device.ports["Ethernet8"].tc_to_pg[3] == 3


def test_bracketed_references_without_a_release_are_read_with_a_warning():
    # Before: read without a word, though every release since 202111 never applies such an entry.
    device = _parse(None)
    [issue] = _said(device)
    assert issue.code == "SYS004" and issue.message.startswith("references are written")
    assert "refuses it from 202111 on" in issue.message and "VERSIONS|DATABASE VERSION" in issue.message
    assert device.ports["Ethernet0"].dscp_to_tc[26] == 3  # (read as 202106 and before read them)


def test_a_release_that_refuses_bracketed_references_reads_them_unset():
    device = _parse("version_3_0_7")  # db_migrator's 202205 version
    [issue] = _said(device)
    assert issue.code == "SYS002" and "'version_3_0_7' names such a release" in issue.message
    assert device.ports["Ethernet0"].dscp_to_tc is None and device.ports["Ethernet0"].tc_to_pg is None
