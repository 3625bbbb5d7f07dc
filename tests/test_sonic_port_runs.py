"""A SONiC switch writes each port's queues alike: `Ethernet4|0` .. `Ethernet4|7` with the fields of `Ethernet0|0` ..
`Ethernet0|7`. The builder reads one port's run of QUEUE rows one by one and gives a later port whose run repeats it
(the same keys but for the port's name, equal fields) that run's settings without reading its rows
(parse/sonic _Builder._runs). What it builds must be what reading every row builds: each queue's scheduler, ECN and
buffer profile, each queue's and PG's source (its own entry and line), the issues and the clashes, whatever a later
run changes (a field, a row more or less, a range key, a port name written with a blank, a value that is no text)."""

from __future__ import annotations

import json
from functools import cache

import pytest

import losslessd.parse.sonic as sonic
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse

PORTS = [f"Ethernet{4 * i}" for i in range(6)]
# queue -> its QUEUE fields, as a switch writes them for every port (SONiC's qos.json.j2 shape: one key per queue)
QUEUE_FIELDS = {0: {"scheduler": "S0"}, 1: {"scheduler": "S0"}, 2: {"scheduler": "S0"},
                3: {"scheduler": "S1", "wred_profile": "W"}, 4: {"scheduler": "S1", "wred_profile": "W"},
                5: {"scheduler": "S0"}, 6: {"scheduler": "S0"}, 7: {"scheduler": "S0"}}


def _tables() -> dict:
    return {
        "DEVICE_METADATA": {"localhost": {"hostname": "leaf", "buffer_model": "dynamic"}},
        "PORT": {p: {"speed": "100000", "mtu": "9100", "admin_status": "up"} for p in PORTS},
        "DSCP_TO_TC_MAP": {"R": {"26": "3"}},
        "TC_TO_PRIORITY_GROUP_MAP": {"R": {"3": "3"}},
        "PORT_QOS_MAP": {p: {"dscp_to_tc_map": "R", "tc_to_pg_map": "R", "pfc_enable": "3,4"} for p in PORTS},
        "SCHEDULER": {"S0": {"type": "DWRR", "weight": "10"}, "S1": {"type": "DWRR", "weight": "50"}},
        "WRED_PROFILE": {"W": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "1000",
                               "green_max_threshold": "2000", "green_drop_probability": "5"}},
        "BUFFER_POOL": {"ingress": {"type": "ingress", "mode": "dynamic", "size": "1000000"},
                        "egress": {"type": "egress", "mode": "dynamic", "size": "1000000"}},
        "BUFFER_PROFILE": {"lossless": {"pool": "ingress", "xon": "100", "xoff": "200", "size": "300",
                                        "dynamic_th": "0"},
                           "eg": {"pool": "egress", "size": "0", "dynamic_th": "7"}},
        "QUEUE": {f"{p}|{q}": dict(fields) for p in PORTS for q, fields in QUEUE_FIELDS.items()},
        "BUFFER_QUEUE": {f"{p}|3-4": {"profile": "eg"} for p in PORTS},
        "BUFFER_PG": {f"{p}|3-4": {"profile": "lossless"} for p in PORTS},
        "CABLE_LENGTH": {"AZURE": {p: "5m" for p in PORTS}},
        "PFC_WD": {p: {"action": "drop", "detection_time": "200", "restoration_time": "200"} for p in PORTS},
    }


def _edited(edit) -> dict:
    tables = _tables()
    edit(tables)
    return tables


def _replace_queue_rows(tables: dict, port: str, rows: dict) -> None:
    """The QUEUE table with ``port``'s rows replaced by ``rows`` where the port's first row stood."""
    out: dict = {}
    for key, fields in tables["QUEUE"].items():
        if key.rpartition("|")[0] == port:
            out.update(rows)
            rows = {}
        else:
            out[key] = fields
    tables["QUEUE"] = out


def _set(port: str, queue: int, **fields) -> object:
    return lambda t: t["QUEUE"][f"{port}|{queue}"].update(fields)


VARIANTS = {
    "alike": lambda t: None,
    "a later port's queue with another scheduler": _set("Ethernet8", 5, scheduler="S1"),
    "the last port's last queue changed": _set("Ethernet20", 7, wred_profile="W"),
    "a field the queue reader does not read": _set("Ethernet12", 2, pfc_wd="x"),
    "a port with a queue less": lambda t: t["QUEUE"].pop("Ethernet8|6"),
    "a port with a queue more": lambda t: _replace_queue_rows(t, "Ethernet12", {
        **{f"Ethernet12|{q}": dict(f) for q, f in QUEUE_FIELDS.items()}, "Ethernet12|9": {"scheduler": "S0"}}),
    "a port's queues as one range key": lambda t: _replace_queue_rows(t, "Ethernet8", {
        "Ethernet8|0-7": {"scheduler": "S0"}}),
    "two ports in one key": lambda t: _replace_queue_rows(t, "Ethernet8", {
        f"Ethernet8,Ethernet12|{q}": dict(f) for q, f in QUEUE_FIELDS.items()}),
    "a port name written with a blank": lambda t: _replace_queue_rows(t, "Ethernet16", {
        f"Ethernet16 |{q}": dict(f) for q, f in QUEUE_FIELDS.items()}),
    "a key naming a port the PORT table lacks": lambda t: _replace_queue_rows(t, "Ethernet16", {
        f"Ethernet17|{q}": dict(f) for q, f in QUEUE_FIELDS.items()}),
    "a number where the first port's runs has text": _set("Ethernet0", 1, scheduler=1),
    "a number on a later port": _set("Ethernet8", 1, scheduler=1),
    "a scheduler the input lacks, on the first port": _set("Ethernet0", 0, scheduler="NONE"),
    "a scheduler the input lacks, on a later port": _set("Ethernet8", 0, scheduler="NONE"),
    "a reference written in brackets on a later port": _set("Ethernet8", 3, scheduler="[SCHEDULER|S1]"),
    "two keys of one queue that clash": lambda t: t["QUEUE"].update({"Ethernet4|3-4": {"scheduler": "S0"}}),
    "a port's queues in two runs": lambda t: t["QUEUE"].update({"Ethernet4|7": t["QUEUE"].pop("Ethernet4|7")}),
    "a bad index": lambda t: _replace_queue_rows(t, "Ethernet8", {
        **{f"Ethernet8|{q}": dict(f) for q, f in QUEUE_FIELDS.items() if q != 2}, "Ethernet8|x": {"scheduler": "S0"}}),
}


def _seen(tables: dict) -> tuple[dict, str]:
    """(the whole device as its model dumps it, the config_db.json text it was read from): every queue's and PG's
    settings and sources (pointer and line), the issues with their lines, and all else the device holds."""
    text = json.dumps(tables, indent=2)
    return parse([Input("config_db.json", text)], "leaf").model_dump(mode="json"), text


def _line(text: str, key: str, table: str) -> int:
    """The line of ``key`` in ``table`` of a config_db.json text, found by searching it."""
    return text.count("\n", 0, text.index(f'"{key}"', text.index(f'"{table}"'))) + 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_ports_whose_queues_repeat_a_run_build_what_reading_every_row_builds(variant, monkeypatch):
    tables = _edited(VARIANTS[variant])
    taken, text = _seen(tables)
    monkeypatch.setattr(sonic, "_RUN_MIN", 10**9)  # every row read one by one
    assert _seen(tables)[0] == taken
    if variant == "alike":  # (what the test compares: every port's 8 queues, each citing its own row)
        assert not taken["issues"] and [len(p["queues"]) for p in taken["ports"].values()] == [8] * len(PORTS)
        queue = taken["ports"]["Ethernet12"]["queues"]["4"]
        assert (queue["scheduler"]["name"], queue["scheduler"]["weight"], queue["ecn"]["profile"],
                queue["buffer_profile"]) == ("S1", 50, "W", "eg")
        assert (queue["source"]["pointer"], queue["source"]["line"]) == (
            "/QUEUE/Ethernet12|4", _line(text, "Ethernet12|4", "QUEUE"))
        assert (queue["buffer_source"]["pointer"], queue["buffer_source"]["line"]) == (
            "/BUFFER_QUEUE/Ethernet12|3-4", _line(text, "Ethernet12|3-4", "BUFFER_QUEUE"))


def test_the_rows_of_ports_that_repeat_a_run_are_not_read(monkeypatch):
    """Of six ports written alike, the QUEUE rows of the first are read (their keys split into port and queue); the
    other five ports' 40 rows are not."""
    split: list[str] = []
    pairs = sonic._pairs.__wrapped__

    @cache
    def counted(key: str, top: int = 63):
        split.append(key)
        return pairs(key, top)

    monkeypatch.setattr(sonic, "_pairs", counted)
    device = _seen(_tables())[0]
    assert not device["issues"] and all(len(port["queues"]) == 8 for port in device["ports"].values())
    assert [key for key in split if key.endswith(tuple(f"|{q}" for q in range(8)))] == [
        f"Ethernet0|{q}" for q in range(8)]
