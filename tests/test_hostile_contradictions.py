"""Hostile round 19: CONFIG_DB files that contradict themselves. Each contradiction is a SYS002 naming both keys'
lines, and what the two keys set differently is read as unknown, never as the later key's value (docs/hostile-inputs.md,
"Session 40, part d")."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from losslessd.parse.base import Input
from losslessd.parse.sonic import parse

LEAF1 = json.loads((Path(__file__).parent.parent / "examples/fabric/leaf1/config_db.json").read_text())


def _parse(change):
    db = copy.deepcopy(LEAF1)
    change(db)
    return parse([Input("config_db.json", json.dumps(db, indent=1))], "leaf1")


def _sys002(device, words: str) -> list[str]:
    return [i.message for i in device.issues if i.code == "SYS002" and words in i.message]


def test_two_port_qos_map_keys_binding_one_port_differently_are_named_and_read_as_unknown():
    # `Ethernet0,Ethernet4` is a key SONiC takes (qosorch splits it on ','); beside `Ethernet0`'s own key it binds the
    # port twice: PFC off for priority 3 here, on there. Before, the later key won without a word (PFC001, exit 1).
    def change(db):
        db["PORT_QOS_MAP"]["Ethernet0,Ethernet4"] = dict(db["PORT_QOS_MAP"]["Ethernet0"], pfc_enable="4",
                                                         dscp_to_tc_map="AZURE")
        db["DSCP_TO_TC_MAP"]["AZURE"] = {str(d): "1" for d in range(64)}
    device = _parse(change)
    [said] = _sys002(device, "both bind port Ethernet0")
    assert "'Ethernet0' (line " in said and "'Ethernet0,Ethernet4'" in said
    assert _sys002(device, "both bind port Ethernet4")
    port = device.ports["Ethernet0"]
    assert port.pfc_enabled is None and port.dscp_to_tc is None
    assert port.trust == "dscp" and port.tc_to_queue is not None  # what both keys set alike stays read
    assert device.ports["Ethernet8"].pfc_enabled == [3, 4]  # no other port touched


def test_two_port_qos_map_keys_setting_different_maps_of_one_port_are_no_contradiction():
    # qosorch.cpp handlePortQosMapTable binds each map a key names and unbinds only what that same key named before:
    # Ethernet0's own key binds the DSCP and PG maps, the list key its queue map; whichever runs last, the port has all.
    def change(db):
        own = db["PORT_QOS_MAP"]["Ethernet0"]
        own.pop("tc_to_queue_map")
        db["PORT_QOS_MAP"]["Ethernet0,Ethernet4"] = {"tc_to_queue_map": "ROCE", "pfc_enable": own["pfc_enable"],
                                                     "pfcwd_sw_enable": own["pfcwd_sw_enable"]}
    device = _parse(change)
    assert not _sys002(device, "both bind")
    port = device.ports["Ethernet0"]
    assert port.trust == "dscp" and port.dscp_to_tc is not None and port.tc_to_queue is not None
    assert port.pfc_enabled == [3]


def test_a_port_qos_map_key_leaving_pfc_enable_out_turns_pfc_off_where_it_runs_last():
    # handlePortQosMapTable writes pfc_enable 0 for a key without it (when the port had PFC on): the keys' order
    # decides PFC, which is unknown; the maps only the other key names stay read.
    def change(db):
        db["PORT_QOS_MAP"]["Ethernet0,Ethernet4"] = {
            k: v for k, v in db["PORT_QOS_MAP"]["Ethernet0"].items() if k != "pfc_enable"}
        db["PORT_QOS_MAP"]["Ethernet0"] = {"pfc_enable": "3", "pfcwd_sw_enable": "3"}
    device = _parse(change)
    assert _sys002(device, "both bind port Ethernet0")
    port = device.ports["Ethernet0"]
    assert port.pfc_enabled is None
    assert port.trust == "dscp" and port.dscp_to_tc is not None and port.tc_to_queue is not None


def test_a_port_qos_map_key_with_a_space_names_no_port_as_orchagent_reads_it():
    # swss-common tokenize (common/tokenize.cpp) splits on ',' and trims nothing; qosorch.cpp handlePortQosMapTable
    # passes each part to PortsOrch::getPort, which finds no 'Ethernet0 ': the key binds nothing, Ethernet0 keeps its
    # own.
    def change(db):
        db["PORT_QOS_MAP"]["Ethernet0 "] = dict(db["PORT_QOS_MAP"]["Ethernet0"], pfc_enable="4")
        db["BUFFER_PG"]["Ethernet4 |3"] = {"profile": "NULL"}
    device = _parse(change)
    assert _sys002(device, "'Ethernet0 ' is not in the PORT table (it has Ethernet0): no port takes the settings")
    assert _sys002(device, "'Ethernet4 ' is not in the PORT table (it has Ethernet4)")
    assert not _sys002(device, "both bind")
    assert device.ports["Ethernet0"].pfc_enabled == [3] and "Ethernet0 " not in device.ports
    assert device.ports["Ethernet4"].priority_groups[3].profile == "pg_lossless_100000_5m_profile"


def test_a_blank_after_a_comma_in_a_port_list_key_names_that_port_and_binds_none():
    # (review of k-dlktiers) swss-common tokenize trims nothing, so bufferorch looks ' Ethernet4' up as written and
    # finds no such port; no sonic-buildimage template writes ', ' (they join port names with ','), so it is said,
    # with the port meant, not bound silently to Ethernet4. (Session 41: bufferorch then refuses the whole key,
    # Ethernet0 too: tests/test_sonic_list_keys.py.)
    def change(db):
        db["BUFFER_PG"]["Ethernet0, Ethernet4|4"] = {"profile": "NULL"}
    device = _parse(change)
    assert _sys002(device, "' Ethernet4' is not in the PORT table (it has Ethernet4)")
    assert 4 not in device.ports["Ethernet4"].priority_groups and 4 not in device.ports["Ethernet0"].priority_groups


def test_port_and_port_qos_map_keys_with_a_space_are_read_alike_one_port():
    # A PORT key 'Ethernet0 ' is a port of its own (portsorch takes the key as the alias); the PORT_QOS_MAP key of the
    # same spelling binds that port, not Ethernet0.
    def change(db):
        db["PORT"]["Ethernet0 "] = dict(db["PORT"]["Ethernet0"])
        db["PORT_QOS_MAP"]["Ethernet0 "] = dict(db["PORT_QOS_MAP"]["Ethernet0"], pfc_enable="4")
    device = _parse(change)
    assert not _sys002(device, "is not in the PORT table")
    assert device.ports["Ethernet0 "].pfc_enabled == [4] and device.ports["Ethernet0"].pfc_enabled == [3]


def test_two_keys_binding_one_port_alike_are_no_contradiction():
    def change(db):
        db["PORT_QOS_MAP"]["Ethernet0,Ethernet4"] = dict(db["PORT_QOS_MAP"]["Ethernet0"])
    device = _parse(change)
    assert not _sys002(device, "both bind")
    assert device.ports["Ethernet0"].pfc_enabled == [3]


def test_port_keys_differing_only_in_case_or_spaces_are_named():
    def change(db):
        db["PORT"]["ethernet0"] = dict(db["PORT"]["Ethernet0"], mtu="1500")
        db["PORT"]["Ethernet0 "] = dict(db["PORT"]["Ethernet0"], mtu="1500")
    device = _parse(change)
    assert len(_sys002(device, "PORT keys 'Ethernet0' (line ")) == 2
    assert _sys002(device, "and 'ethernet0' differ only in case or spaces")


def test_a_port_in_two_port_channels_is_named_and_in_neither():
    def change(db):
        db["PORTCHANNEL"] = {"PortChannel1": {"admin_status": "up"}, "PortChannel2": {"admin_status": "up"}}
        db["PORTCHANNEL_MEMBER"] = {"PortChannel1|Ethernet48": {}, "PortChannel2|Ethernet48": {},
                                    "PortChannel1|Ethernet52": {}}
    device = _parse(change)
    [said] = _sys002(device, "puts Ethernet48 in PortChannel1 and in PortChannel2")
    assert "member of neither" in said
    assert device.ports["Ethernet48"].bundle is None and device.ports["Ethernet52"].bundle == "PortChannel1"
