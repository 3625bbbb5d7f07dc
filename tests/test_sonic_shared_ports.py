"""SONiC ports configured alike share their queues and PGs (model.SharedPort): each port's queues and PGs, made when a
rule first reads them, are what the QUEUE, BUFFER_QUEUE and BUFFER_PG entries set (sonic-swss qosorch.cpp and
bufferorch.cpp apply an entry to every queue or PG of its key's range; two keys that set one PG differently leave it
unknown: test_parse_sonic), each citing its own entry; buffermgrd's run-time PG cites the port's pfc_enable
(cfgmgr/buffermgr.cpp). The switch runs the dynamic buffer model here: the traditional one binds lookup profiles over
the file's PGs (test_sonic_buffermgrd)."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

from losslessd.lint.groups import Keys
from losslessd.model import Port, SharedPort
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse

_QOS = {"dscp_to_tc_map": "R", "tc_to_pg_map": "R", "pfc_enable": "3,6"}
TABLES = {
    "DEVICE_METADATA": {"localhost": {"buffer_model": "dynamic"}},
    "PORT": {name: {"speed": "100000", "mtu": "9100", "admin_status": "up"}
             for name in ("Ethernet0", "Ethernet4", "Ethernet8")},
    "DSCP_TO_TC_MAP": {"R": {"26": "3"}},
    "TC_TO_PRIORITY_GROUP_MAP": {"R": {"3": "3"}},
    "PORT_QOS_MAP": {name: dict(_QOS) for name in ("Ethernet0", "Ethernet4", "Ethernet8")},
    "SCHEDULER": {"A": {"type": "DWRR", "weight": "10"}},
    "WRED_PROFILE": {"W": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000",
                           "green_max_threshold": "2000", "green_drop_probability": "5"}},
    "BUFFER_POOL": {"ingress": {"type": "ingress", "mode": "dynamic", "size": "1000000"},
                    "egress": {"type": "egress", "mode": "dynamic", "size": "1000000"}},
    "BUFFER_PROFILE": {"lossless": {"pool": "ingress", "xon": "100", "xoff": "200", "size": "300", "dynamic_th": "0"},
                       "lossy": {"pool": "ingress", "size": "0", "dynamic_th": "3"},
                       "eg": {"pool": "egress", "size": "0", "dynamic_th": "7"}},
    "QUEUE": {"Ethernet0|0-2": {"scheduler": "A"}, "Ethernet0|1": {"wred_profile": "W"},
              "Ethernet4|0-2": {"scheduler": "A"}, "Ethernet4|1": {"wred_profile": "W"},
              "Ethernet8|0-2": {"scheduler": "A"}},
    "BUFFER_QUEUE": {"Ethernet0|3": {"profile": "eg"}, "Ethernet0|1": {"profile": "eg"},
                     "Ethernet4|3": {"profile": "eg"}, "Ethernet4|1": {"profile": "eg"}},
    "BUFFER_PG": {"Ethernet0|3": {"profile": "lossless"}, "Ethernet0|4": {"profile": "lossy"},
                  "Ethernet4|3": {"profile": "lossless"}, "Ethernet4|4": {"profile": "lossy"},
                  "Ethernet8|3": {"profile": "lossless"}, "Ethernet8|4": {"profile": "lossy"}},
    "CABLE_LENGTH": {"AZURE": {"Ethernet0": "5m", "Ethernet4": "5m", "Ethernet8": "5m"}},
}


def _device():
    return parse([Input("config_db.json", json.dumps(TABLES, indent=1))], "dut")


def _queues(port: Port) -> list[tuple]:
    return [(i, q.scheduler and q.scheduler.name, q.ecn and q.ecn.profile, q.source and q.source.pointer,
             q.buffer_profile, q.buffer_source and q.buffer_source.pointer) for i, q in port.queues.items()]


def _pgs(port: Port) -> list[tuple]:
    return [(i, pg.profile, pg.runtime_profile, pg.source.pointer) for i, pg in port.priority_groups.items()]


def test_each_port_cites_its_own_entries():
    ports = _device().ports
    assert all(type(p) is SharedPort for p in ports.values())
    assert _queues(ports["Ethernet4"]) == [
        (0, "A", None, "/QUEUE/Ethernet4|0-2", None, None),
        (1, "A", "W", "/QUEUE/Ethernet4|0-2", "eg", "/BUFFER_QUEUE/Ethernet4|1"),  # the range entry made it
        (2, "A", None, "/QUEUE/Ethernet4|0-2", None, None),
        (3, None, None, None, "eg", "/BUFFER_QUEUE/Ethernet4|3"),  # no QUEUE entry: no source of its own
    ]
    assert _pgs(ports["Ethernet4"]) == [
        (3, "lossless", False, "/BUFFER_PG/Ethernet4|3"),
        (4, "lossy", False, "/BUFFER_PG/Ethernet4|4"),
        (6, None, True, "/PORT_QOS_MAP/Ethernet4/pfc_enable"),  # buffermgrd's, for pfc_enable 6
    ]
    # Ethernet0 shares Ethernet4's part, and cites its own entries, at their own lines
    assert [q[:3] for q in _queues(ports["Ethernet0"])] == [q[:3] for q in _queues(ports["Ethernet4"])]
    assert [q[3] for q in _queues(ports["Ethernet0"])][:1] == ["/QUEUE/Ethernet0|0-2"]
    text = json.dumps(TABLES, indent=1).splitlines()
    source = ports["Ethernet0"].queues[1].buffer_source
    assert text[source.line - 1].strip().startswith('"Ethernet0|1"') and source.line != ports[
        "Ethernet4"].queues[1].buffer_source.line


def test_reading_pg_profiles_and_keying_make_no_queue():
    ports = _device().ports
    e0, e4, e8 = ports["Ethernet0"], ports["Ethernet4"], ports["Ethernet8"]
    assert e0.pg_profiles() == {3: ("lossless", False), 4: ("lossy", False), 6: (None, True)}
    keys = Keys()
    assert keys.port(e0) == keys.port(e4) != keys.port(e8)  # Ethernet8 has no WRED profile on queue 1, no BUFFER_QUEUE
    assert all(p._shared is not None for p in (e0, e4, e8))  # nothing made yet
    assert e0.pg_profiles() == {i: (pg.profile, pg.runtime_profile) for i, pg in e0.priority_groups.items()}
    assert e0._shared is None  # made once read


def test_a_shared_port_pickles_copies_and_compares_as_the_port_it_stands_for():
    ports = _device().ports
    port = ports["Ethernet0"]
    for other in (pickle.loads(pickle.dumps(ports["Ethernet0"])), copy.deepcopy(ports["Ethernet4"]),
                  copy.copy(ports["Ethernet8"])):
        assert type(other) is Port
    plain = pickle.loads(pickle.dumps(port))
    assert plain == port and port == plain and repr(port) == repr(port.plain()) and repr(port).startswith("Port(")
    assert [q.source and (q.source.pointer, q.source.line) for q in plain.queues.values()] == [
        q.source and (q.source.pointer, q.source.line) for q in port.queues.values()]
    assert port != ports["Ethernet4"]  # (its name)
    plain.queues[1].ecn = None
    assert plain != port
    # written after it is made, a shared port keeps what it was given
    port.priority_groups = {}
    assert port.priority_groups == {} and port.pg_profiles() == {}


def test_rows_read_without_their_entries_still_cite_them():
    """QUEUE, BUFFER_QUEUE and BUFFER_PG rows are read as decoded; an entry is made where it is cited: an issue, a
    port only they name, a queue's source, and a later file's entry merged field by field (sonic-cfggen -j a -j b)."""
    first = {"PORT": {"Ethernet0": {"mtu": "9100"}}, "SCHEDULER": {"A": {"type": "DWRR", "weight": "10"}},
             "WRED_PROFILE": {"W": {"ecn": "ecn_all"}},
             "QUEUE": {"Ethernet0|3": {"scheduler": "A"}, "Ethernet0|x": {"scheduler": "A"},
                       "Ethernet9|1": {"scheduler": "A"}}}
    later = {"QUEUE": {"Ethernet0|3": {"wred_profile": "W"}}}
    text = json.dumps(first, indent=1)
    device = parse([Input("a.json", text), Input("b.json", json.dumps(later, indent=1))], "dut")
    queue = device.ports["Ethernet0"].queues[3]
    assert (queue.scheduler.name, queue.ecn.profile, queue.source.file, queue.source.pointer) == (
        "A", "W", "b.json", "/QUEUE/Ethernet0|3")

    def line_of(key: str) -> int:
        return next(n for n, line in enumerate(text.splitlines(), 1) if line.strip().startswith(f'"{key}"'))

    bad_key = next(i for i in device.issues if "'Ethernet0|x'" in i.message)
    assert (bad_key.source.file, bad_key.source.pointer, bad_key.source.line) == (
        "a.json", "/QUEUE/Ethernet0|x", line_of("Ethernet0|x"))
    unknown = next(i for i in device.issues if i.message.startswith("Ethernet9 is not in the PORT table"))
    assert (unknown.source.pointer, unknown.source.line) == ("/QUEUE/Ethernet9|1", line_of("Ethernet9|1"))
    assert "Ethernet9" not in device.ports


_WD = {"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"},
                  **{name: {"action": "drop", "detection_time": "200", "restoration_time": "400"}
                     for name in ("Ethernet0", "Ethernet4", "Ethernet8")}},
       "PORT_QOS_MAP": {name: {**_QOS, "pfcwd_sw_enable": "3"} for name in ("Ethernet0", "Ethernet4", "Ethernet8")},
       "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}}}  # (pfcwd_sw_enable is read: 202205 on)


def test_a_shared_ports_watchdog_is_made_when_read_citing_its_own_entry():
    """PFC_WD|<port> (sonic-swss pfcwdorch.cpp reads detection_time, restoration_time and action per port): a
    SharedPort's watchdog is made when first read, citing the port's own entry; keyed before or after it is made,
    ports written alike have one key."""
    text = json.dumps({**TABLES, **_WD}, indent=1)
    ports = parse([Input("config_db.json", text)], "dut").ports
    e0, e4 = ports["Ethernet0"], ports["Ethernet4"]
    assert e0._wd is not None and e4._wd is not None and e0._wd[0] == e4._wd[0]  # nothing made yet
    before = Keys().port(e0)
    wd = e4.watchdog  # made now
    assert e4._wd is None and e0._wd is not None
    assert (wd.enabled, wd.priorities, wd.detection_time_ms, wd.restoration_time_ms, wd.polling_interval_ms,
            wd.action_raw, wd.source.pointer) == (True, [3], 200.0, 400.0, 200.0, "drop", "/PFC_WD/Ethernet4")
    assert text.splitlines()[wd.source.line - 1].strip().startswith('"Ethernet4"')
    keys = Keys()
    assert keys.port(e0) == keys.port(e4)  # one not made, the other made: alike
    assert before == Keys().port(e0)
    assert e0.watchdog == wd.__class__(**{**vars_of(wd), "source": e0.watchdog.source}) and e0.watchdog is not wd
    assert e0.watchdog.priorities is not wd.priorities  # a list of each port's own
    plain = pickle.loads(pickle.dumps(ports["Ethernet8"]))
    assert type(plain) is Port and plain.watchdog == ports["Ethernet8"].watchdog
    e8 = ports["Ethernet8"]
    e8.watchdog = None  # written before it is made: what it was given
    assert e8.watchdog is None and e8._wd is None


def vars_of(obj) -> dict:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def test_path_views_of_shared_ports_make_no_queue():
    """A topology run asks every port which sources its path template may fall back from (paths/view._presence): a
    SharedPort answers from its shared part and its own sources, as the port with its queues and PGs made does."""
    from losslessd.paths.view import _presence

    ports = _device().ports
    # (asked first, while Ethernet4 is still shared: plain() below makes its queues)
    assert _presence(ports["Ethernet4"])[4:] == ((False, False, False), (False, False, False, True))
    for port in ports.values():
        shared = _presence(port)
        assert port._shared is not None  # nothing made
        assert shared == _presence(port.plain())  # (plain() makes them)


def test_a_port_keyed_after_one_alike_has_its_key_only_where_its_content_is_equal():
    """Keys.port compares a SharedPort with the one keyed before it (the same shared part, equal watchdog settings,
    each field equal or the same object) before it makes its content: whichever port is changed, two ports have one
    key exactly where their contents give one (a field set apart, a map of other content or order: two keys; a map or
    list of equal content that is another object: one)."""
    def keyed(change, at: int, compare: bool = True) -> bool:
        ports = list(parse([Input("config_db.json", json.dumps({**TABLES, **_WD}, indent=1))], "dut").ports.values())
        assert ports[0]._shared[0] is ports[1]._shared[0] and ports[0]._wd[0] == ports[1]._wd[0]  # (alike)
        change(ports[at])
        if change is order:  # (and the other port's the same items in the other order)
            ports[1 - at].dscp_to_tc = dict(reversed(ports[at].dscp_to_tc.items()))
        keys = Keys()
        if not compare:
            keys._alike = lambda port, values: False  # (content alone)
        return keys.port(ports[0]) == keys.port(ports[1])

    def order(port: Port) -> None:
        port.dscp_to_tc = {**port.dscp_to_tc, 0: 0}

    changes = {"none": lambda p: None, "mtu": lambda p: setattr(p, "mtu_bytes", 1500),
               "pfc": lambda p: setattr(p, "pfc_enabled", [3]), "no pfc": lambda p: setattr(p, "pfc_enabled", None),
               "pfc list": lambda p: setattr(p, "pfc_enabled", list(p.pfc_enabled)),
               "map": lambda p: setattr(p, "dscp_to_tc", {26: 1}),
               "map copy": lambda p: setattr(p, "dscp_to_tc", dict(p.dscp_to_tc)),
               "map order": order,
               "vlans": lambda p: setattr(p, "vlans", [10]), "trust": lambda p: setattr(p, "trust", None),
               "watchdog": lambda p: setattr(p, "_wd", ((False, *p._wd[0][1:]), p._wd[1]))}
    alike = {name: [keyed(change, at) for at in (0, 1)] for name, change in changes.items()}
    assert alike == {name: [keyed(change, at, compare=False) for at in (0, 1)] for name, change in changes.items()}
    assert [name for name, same in alike.items() if same == [True, True]] == ["none", "pfc list", "map copy"]
