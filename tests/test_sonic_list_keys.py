"""SONiC keys listing ports (`Ethernet0,Ethernet4|3`) read as each orch reads them when a listed port is not in the
PORT table, and PFC_WD keys, which name one port (docs/real-configs.md "Session 41, part f").

What each orch does, from sonic-swss (e6b0c5b5d2ab): bufferorch.cpp processPriorityGroup / processQueue return
task_invalid_entry at the first port PortsOrch::getPort cannot find, before the key's SAI bulk call (#3452), so no
listed port is set; qosorch.cpp handleQueueTable sets queues port by port and returns at that port; qosorch.cpp
handlePortQosMapTable skips the port (`continue`) and binds the others; pfcwdorch.cpp createEntry looks the whole
PFC_WD key up as one port name."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from losslessd.parse.base import Input
from losslessd.parse.sonic import parse
from tests.clirun import losslessd

LEAF1 = json.loads((Path(__file__).parent.parent / "examples/fabric/leaf1/config_db.json").read_text())
LOSSLESS_PG = "pg_lossless_100000_5m_profile"


def _db(change) -> dict:
    db = copy.deepcopy(LEAF1)
    change(db)
    return db


def _parse(db: dict):
    return parse([Input("config_db.json", json.dumps(db, indent=1))], "leaf1")


def _said(device, words: str) -> list[str]:
    return [i.message for i in device.issues if i.code == "SYS002" and words in i.message]


def test_a_buffer_pg_key_listing_an_unknown_port_binds_none_of_its_ports():
    # The brief's reproducer: Ethernet99 stands for a port gone from PORT (a breakout), listed among known ones. (A PG
    # that pfc_enable names is made by buffermgrd at run time, from PORT_QOS_MAP: no PG is taken from the key.)
    device = _parse(_db(lambda db: db["BUFFER_PG"].update({
        "Ethernet0, Ethernet4,Ethernet99,Ethernet8|4": {"profile": LOSSLESS_PG}})))
    for port in ("Ethernet0", "Ethernet4", "Ethernet8"):
        pg = device.ports[port].priority_groups.get(4)
        assert pg is None or not pg.source.pointer.startswith("/BUFFER_PG/"), (port, pg)
    said = _said(device, "BUFFER_PG key 'Ethernet0, Ethernet4,Ethernet99,Ethernet8|4': ' Ethernet4' is not in the "
                         "PORT table (it has Ethernet4)")
    assert said and "bufferorch.cpp" in said[0] and "releases before that set Ethernet0" in said[0], device.issues
    assert "Ethernet99" not in device.ports


def test_a_buffer_queue_key_listing_an_unknown_port_binds_none_of_its_ports():
    def change(db):
        del db["BUFFER_QUEUE"]["Ethernet4|3"]
        db["BUFFER_QUEUE"]["Ethernet99,Ethernet4|3"] = {"profile": "egress_lossless_profile"}
    device = _parse(_db(change))
    assert device.ports["Ethernet4"].queues[3].buffer_profile is None
    assert _said(device, "BUFFER_QUEUE key 'Ethernet99,Ethernet4|3': Ethernet99 is not in the PORT table")
    assert device.ports["Ethernet0"].queues[3].buffer_profile == "egress_lossless_profile"


def test_a_queue_key_listing_an_unknown_port_sets_the_ports_before_it():
    def change(db):
        for port in ("Ethernet0", "Ethernet4"):
            del db["QUEUE"][f"{port}|6"]
        db["QUEUE"]["Ethernet0,Ethernet99,Ethernet4|6"] = dict(LEAF1["QUEUE"]["Ethernet0|6"])
    device = _parse(_db(change))
    assert device.ports["Ethernet0"].queues[6].scheduler is not None
    assert 6 not in device.ports["Ethernet4"].queues or device.ports["Ethernet4"].queues[6].scheduler is None
    said = _said(device, "QUEUE key 'Ethernet0,Ethernet99,Ethernet4|6': Ethernet99 is not in the PORT table")
    assert said and "Ethernet0 takes its scheduler" in said[0] and "Ethernet4 none" in said[0]


def test_a_port_qos_map_key_listing_an_unknown_port_binds_the_others():
    # handlePortQosMapTable skips a port it cannot find and goes on: the known ports take the maps and PFC.
    def change(db):
        fields = db["PORT_QOS_MAP"].pop("Ethernet4")
        db["PORT_QOS_MAP"]["Ethernet99,Ethernet4"] = fields
    device = _parse(_db(change))
    assert device.ports["Ethernet4"].pfc_enabled == [3]
    assert _said(device, "Ethernet99 is not in the PORT table: no port takes the settings written for it")


def test_a_list_key_without_a_port_table_binds_every_listed_port():
    # A rendered buffers.json has no PORT table: which ports the switch has is not in the input.
    db = {"BUFFER_PG": {"Ethernet0,Ethernet99|4": {"profile": LOSSLESS_PG}},
          "BUFFER_PROFILE": LEAF1["BUFFER_PROFILE"], "BUFFER_POOL": LEAF1["BUFFER_POOL"]}
    device = _parse(db)
    assert 4 in device.ports["Ethernet0"].priority_groups and 4 in device.ports["Ethernet99"].priority_groups
    assert not _said(device, "is not in the PORT table")


def test_a_pfc_wd_key_listing_ports_starts_no_watchdog_and_the_finding_names_it(tmp_path):
    # Before: the key was split as a list, Ethernet4 read as guarded by it (no WDG001), and beside Ethernet0's own key
    # a refused list key made Ethernet0's watchdog unknown with advice to `pfcwd start` it.
    db = _db(lambda db: db["PFC_WD"].update({"Ethernet0,Ethernet4": db["PFC_WD"].pop("Ethernet4")}))
    device = _parse(db)
    assert device.ports["Ethernet0"].watchdog.enabled is True  # its own key
    wd = device.ports["Ethernet4"].watchdog
    assert wd.enabled is False and wd.source.pointer == "/PFC_WD/Ethernet0,Ethernet4"
    said = _said(device, "PFC_WD key 'Ethernet0,Ethernet4' lists ports")
    assert said and "starts no watchdog on Ethernet0, Ethernet4" in said[0]
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(db, indent=1))
    result = losslessd("lint", str(path), "--select", "WDG001,SYS")
    assert result.returncode == 1, result.stderr
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"Ethernet0,Ethernet4"' in text)
    wdg = [row for row in result.stdout.splitlines() if "WDG001" in row]
    assert len(wdg) == 1 and "Ethernet4" in wdg[0] and "PFC watchdog is off" in wdg[0], result.stdout
    assert f"config_db.json:{line}" in result.stdout, result.stdout


# A CONFIG_DB part (no PORT or DEVICE_METADATA: a file for `config load` / `sonic-cfggen --write-to-db`) is merged into
# the switch's CONFIG_DB, keeping the entries it leaves out (sonic-swss-common configdb.cpp mod_config: "Extra
# entries/fields in the db which are not in the data are kept"): a table or key it lacks is the switch's, not off.
QOS_PART = ("DSCP_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE",
            "PORT_QOS_MAP")


def test_a_part_without_a_queue_table_leaves_ecn_unknown_not_off(tmp_path):
    # Before: ECN001 error on every port ("queue 3 does not mark ECN"), exit 1 on what the part does not hold.
    path = tmp_path / "qos-part.json"
    path.write_text(json.dumps({t: LEAF1[t] for t in QOS_PART}, indent=1))
    result = losslessd("lint", str(path), "--select", "ECN001")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "whether queue 3 (lossless priority 3) marks ECN is not known: the input is a CONFIG_DB part without a " \
           "QUEUE table" in result.stdout, result.stdout
    assert "does not mark ECN" not in result.stdout
    # A whole CONFIG_DB whose QUEUE table leaves queue 3 out: orchagent gives it no WRED profile, it marks nothing.
    whole = _db(lambda db: [db["QUEUE"].pop(f"{p}|3") for p in list(db["PORT"])])
    path.write_text(json.dumps(whole, indent=1))
    result = losslessd("lint", str(path), "--select", "ECN001")
    assert result.returncode == 1 and "queue 3 (lossless priority 3) does not mark ECN" in result.stdout


def test_a_part_with_a_pfc_wd_table_leaves_the_ports_it_omits_unknown():
    part = {t: LEAF1[t] for t in QOS_PART}
    part["PFC_WD"] = {k: v for k, v in LEAF1["PFC_WD"].items() if k != "Ethernet4"}
    device = _parse(part)
    assert device.ports["Ethernet0"].watchdog.enabled is True
    assert device.ports["Ethernet4"].watchdog is None  # the switch's own key, if any, stays
    whole = _db(lambda db: db["PFC_WD"].pop("Ethernet4"))
    assert _parse(whole).ports["Ethernet4"].watchdog.enabled is False  # a whole CONFIG_DB: no key, no watchdog


def test_a_part_whose_pfc_wd_key_lists_ports_leaves_their_watchdogs_unknown():
    # The part's refused key starts nothing, and loading it keeps the switch's own PFC_WD|Ethernet0 and |Ethernet4
    # keys: whether they run is the switch's (as for a port the part leaves out). Before: off, a WDG001 error.
    part = {t: LEAF1[t] for t in QOS_PART}
    part["PFC_WD"] = {k: v for k, v in LEAF1["PFC_WD"].items() if k not in ("Ethernet0", "Ethernet4")}
    part["PFC_WD"]["Ethernet0,Ethernet4"] = LEAF1["PFC_WD"]["Ethernet4"]
    device = _parse(part)
    assert device.ports["Ethernet0"].watchdog is None and device.ports["Ethernet4"].watchdog is None
    assert device.ports["Ethernet8"].watchdog.enabled is True
    assert _said(device, "PFC_WD key 'Ethernet0,Ethernet4' lists ports")


def test_a_part_whose_pfc_wd_entry_orchagent_refuses_leaves_the_watchdog_unknown():
    # pfcwdorch.cpp createEntry returns task_invalid_entry before startWdOnPort (a refused entry stops no running
    # watchdog), and loading a part HSETs its fields into the switch's own PFC_WD|Ethernet0 (mod_config): whether a
    # watchdog runs is the switch's. Before: off, a WDG001 error on what the part does not decide.
    part = {t: LEAF1[t] for t in QOS_PART}
    part["PFC_WD"] = copy.deepcopy(LEAF1["PFC_WD"])
    part["PFC_WD"]["Ethernet0"]["action"] = "shutdown"  # not one of drop, forward, alert
    del part["PFC_WD"]["Ethernet4"]["detection_time"]  # the switch's own detection_time survives the merge
    device = _parse(part)
    assert device.ports["Ethernet0"].watchdog is None and device.ports["Ethernet4"].watchdog is None
    assert device.ports["Ethernet8"].watchdog.enabled is True
    said = [i.message for i in device.issues if i.code == "SYS002" and i.message.startswith("PFC_WD|Ethernet0")]
    assert said and "the port keeps whatever watchdog the switch runs" in said[0], said
    # A whole CONFIG_DB replaces the switch's (config reload): the refused entries leave those ports without one.
    whole = _db(lambda db: (db["PFC_WD"]["Ethernet0"].update(action="shutdown"),
                            db["PFC_WD"]["Ethernet4"].pop("detection_time")))
    device = _parse(whole)
    assert device.ports["Ethernet0"].watchdog.enabled is False and device.ports["Ethernet4"].watchdog.enabled is False


def test_a_part_whose_port_qos_map_entry_omits_pfc_enable_leaves_pfc_unknown(tmp_path):
    # `config load` (sonic-cfggen --write-to-db, ConfigDBPipeConnector mod_config) HSETs the fields an entry writes:
    # the switch's own pfc_enable and map bindings stay. Before: PFC off, a PFC001 error per port, exit 1.
    part = {t: copy.deepcopy(LEAF1[t]) for t in QOS_PART}
    for entry in part["PORT_QOS_MAP"].values():
        entry.pop("pfc_enable", None)
        entry.pop("dscp_to_tc_map", None)
    device = _parse(part)
    assert device.ports["Ethernet0"].pfc_enabled is None
    assert device.ports["Ethernet0"].trust is None  # the switch's dscp_to_tc_map binding stays
    said = [i.message for i in device.issues if i.code == "SYS004" and "write no pfc_enable" in i.message]
    assert len(said) == 1 and "`config load` merges an entry's fields into the switch's own" in said[0], said
    path = tmp_path / "qos-part.json"
    path.write_text(json.dumps(part, indent=1))
    result = losslessd("lint", str(path), "--select", "PFC001")
    assert result.returncode == 0 and "PFC is off" not in result.stdout, result.stdout + result.stderr
    # A whole CONFIG_DB (config reload replaces the switch's): no pfc_enable is PFC off, no map is no trust.
    whole = _db(lambda db: [(e.pop("pfc_enable", None), e.pop("dscp_to_tc_map", None))
                            for e in db["PORT_QOS_MAP"].values()])
    device = _parse(whole)
    assert device.ports["Ethernet0"].pfc_enabled == [] and device.ports["Ethernet0"].trust is not None
    assert not [i for i in device.issues if "write no pfc_enable" in i.message]


def test_a_part_whose_port_qos_map_entry_omits_pfcwd_sw_enable_leaves_the_watched_priorities_unknown(tmp_path):
    # qosorch.cpp handlePortQosMapTable sets the port's watchdog mask from the entry's pfcwd_sw_enable; `config load`
    # merges the part's fields into the switch's own entry (mod_config), whose pfcwd_sw_enable stays. Before: read as
    # the whole file's default, every lossless priority watched, and WDG001 silent on what the part does not decide.
    part = {t: copy.deepcopy(LEAF1[t]) for t in QOS_PART}
    part["PFC_WD"] = copy.deepcopy(LEAF1["PFC_WD"])
    part["PORT_QOS_MAP"]["Ethernet0"].pop("pfcwd_sw_enable")
    part["PORT_QOS_MAP"].pop("Ethernet4")  # the switch's own entry, and its pfcwd_sw_enable, stay
    device = _parse(part)
    for port in ("Ethernet0", "Ethernet4"):
        wd = device.ports[port].watchdog
        assert wd.enabled is True and wd.priorities_unknown and "pfcwd_sw_enable" in wd.priorities_unknown, port
    assert device.ports["Ethernet8"].watchdog.priorities == [3, 4]  # its own pfcwd_sw_enable "3,4"
    assert device.ports["Ethernet8"].watchdog.priorities_unknown is None
    path = tmp_path / "qos-part.json"
    path.write_text(json.dumps(part, indent=1))
    result = losslessd("lint", str(path), "--select", "WDG001")
    assert result.returncode == 0, result.stdout + result.stderr
    # (Ethernet4, with no PORT_QOS_MAP entry in the part, is not selected as RoCE-facing)
    assert "WDG001 Ethernet0: the PFC watchdog is on, but which priorities it watches is not in the input" \
        in result.stdout, result.stdout
    # A whole CONFIG_DB (config reload replaces the switch's): read as before.
    whole = _db(lambda db: db["PORT_QOS_MAP"]["Ethernet0"].pop("pfcwd_sw_enable"))
    assert _parse(whole).ports["Ethernet0"].watchdog.priorities_unknown is None


def test_a_part_binding_a_port_twice_one_key_without_pfcwd_sw_enable_leaves_its_watched_priorities_unknown():
    # Two PORT_QOS_MAP keys of a part bind Ethernet0: `config load` merges each into the switch's own entry of that
    # key (mod_config), and qosorch.cpp handlePortQosMapTable sets the watchdog mask from each entry's
    # pfcwd_sw_enable, in an order the file does not fix; the key without one keeps the switch's own, unknown here.
    # Before: unknown when that key came last, read as the other key's "3" when it came first (the order decided).
    for without_first in (True, False):
        part = {t: copy.deepcopy(LEAF1[t]) for t in QOS_PART}
        part["PFC_WD"] = copy.deepcopy(LEAF1["PFC_WD"])
        qos = part["PORT_QOS_MAP"]
        own = qos.pop("Ethernet0")
        without = {k: v for k, v in own.items() if k != "pfcwd_sw_enable"}
        listed = dict(own, pfcwd_sw_enable="3")
        keys = [("Ethernet0", without), ("Ethernet0,Ethernet4", dict(listed))]
        for key, entry in keys if without_first else keys[::-1]:
            qos[key] = entry
        qos.pop("Ethernet4")
        wd = _parse(part).ports["Ethernet0"].watchdog
        assert wd.enabled is True and wd.priorities_unknown and "pfcwd_sw_enable" in wd.priorities_unknown, \
            (without_first, wd)


def test_a_whole_config_db_s_entry_never_applied_leaves_the_watchdog_on_no_priority():
    # Session 43 part i's Left: an entry holding a reference in the form its release refuses is retried, never applied
    # (qosorch.cpp handlePortQosMapTable: not_resolved -> task_need_retry), so on 202205 and later the watchdog mask is
    # never saved (port.h m_pfcwd_sw_bitmask = 0) and up to 202111 the port's PFC bits, which that watchdog reads, are
    # never set: it watches no priority on any release. Before: read as the entry's pfcwd_sw_enable ([3]).
    for version, form in (("version_2_0_2", "{}"), ("version_4_0_3", "[DSCP_TO_TC_MAP|{}]")):
        def change(db, version=version, form=form):
            db["VERSIONS"]["DATABASE"]["VERSION"] = version
            entry = db["PORT_QOS_MAP"]["Ethernet0"]
            entry["dscp_to_tc_map"] = form.format(entry["dscp_to_tc_map"])
        port = _parse(_db(change)).ports["Ethernet0"]
        assert port.pfc_enabled == [] and port.watchdog.enabled is True, version
        assert port.watchdog.priorities == [] and port.watchdog.priorities_unknown is None, (version, port.watchdog)


# The PORT_QOS_MAP fields of examples/fabric/leaf1's Ethernet0 that name a QoS map, and the tables they name.
_ETHERNET0_MAPS = {"dscp_to_tc_map": "DSCP_TO_TC_MAP", "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
                   "tc_to_queue_map": "TC_TO_QUEUE_MAP", "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE"}


def _watchdog_at(version: str | None, pfcwd_sw_enable: str | None):
    """Ethernet0's watchdog in examples/fabric/leaf1 (pfc_enable "3") saved by db_migrator ``version`` (None: no
    VERSIONS table), its pfcwd_sw_enable ``pfcwd_sw_enable`` (None: left out); its maps bracketed where the version
    is 202106's or before (names alone are refused there, the entry never applied)."""
    def change(db):
        entry = db["PORT_QOS_MAP"]["Ethernet0"]
        entry.pop("pfcwd_sw_enable")
        if pfcwd_sw_enable is not None:
            entry["pfcwd_sw_enable"] = pfcwd_sw_enable
        if version is None:
            del db["VERSIONS"]
            return
        db["VERSIONS"]["DATABASE"]["VERSION"] = version
        if version in ("version_1_0_6", "version_2_0_2"):
            entry.update({f: f"[{table}|{entry[f]}]" for f, table in _ETHERNET0_MAPS.items()})
    return _parse(_db(change)).ports["Ethernet0"].watchdog


def test_a_whole_config_db_s_watched_priorities_are_read_by_its_release(tmp_path):
    # sonic-swss 5329c3927 (202205 on; 202012's branch since eef993fe9): handlePortQosMapTable saves the watchdog mask
    # from pfcwd_sw_enable on every entry, 0 where it is left out, and pfcwdorch finds "No lossless TC" on a mask of 0.
    # Up to 202111 pfcwdorch takes the port's PFC bits (pfc_enable) and reads no pfcwd_sw_enable. db_migrator: 202205
    # writes 3_0_x, 202305 on `version_202305_01`..., 202111 2_0_3/2_0_4, 202012 and 202106 both 2_0_2, 201911 1_0_6.
    # Before: every release (and none named) read as the whole entry's pfcwd_sw_enable, every lossless priority when
    # left out.
    for version in ("version_3_0_0", "version_4_0_3", "version_202305_01"):
        wd = _watchdog_at(version, None)
        assert wd.enabled is True and wd.priorities == [] and wd.priorities_unknown is None, version
        assert _watchdog_at(version, "4").priorities == [4], version
    for version in ("version_1_0_6", "version_2_0_3", "version_2_0_4"):  # (pfc_enable "3" is what they watch)
        for written in (None, "4", ""):
            wd = _watchdog_at(version, written)
            assert wd.priorities is None and wd.priorities_unknown is None, (version, written)
    for version, why in ((None, "names no SONiC release"), ("version_2_0_2", "202012's or 202106's")):
        for written in (None, "4"):
            wd = _watchdog_at(version, written)
            assert wd.enabled is True and wd.priorities_unknown and why in wd.priorities_unknown, (version, written)
            assert "202205 on" in wd.priorities_unknown and "pfc_enable" in wd.priorities_unknown
        wd = _watchdog_at(version, "3")  # (as pfc_enable: every release reads the same)
        assert wd.priorities == [3] and wd.priorities_unknown is None, version
    db = _db(lambda db: db["PORT_QOS_MAP"]["Ethernet0"].pop("pfcwd_sw_enable"))  # (leaf1 names version_4_0_3)
    path = tmp_path / "config_db.json"
    path.write_text(json.dumps(db, indent=1))
    result = losslessd("lint", str(path), "--select", "WDG001")
    assert result.returncode == 1, result.stdout + result.stderr
    assert ("WDG001 Ethernet0: PFC watchdog covers no priority; lossless priority 3 is unguarded against PFC storms: "
            "start the watchdog on priority 3 (`pfcwd_sw_enable` in the port's PORT_QOS_MAP, which lists the "
            "priorities SONiC 202205 and later watch, none where it is left out)") in result.stdout, result.stdout
