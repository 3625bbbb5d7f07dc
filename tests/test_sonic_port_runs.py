"""A SONiC switch writes each port's queues alike: `Ethernet4|0` .. `Ethernet4|7` with the fields of `Ethernet0|0` ..
`Ethernet0|7`. The builder reads one port's run of QUEUE rows one by one and gives a later port whose run repeats it
(the same keys but for the port's name, equal fields) that run's settings without reading its rows
(parse/sonic _Builder._runs), and where every later port repeats the first, takes the rest of the QUEUE, BUFFER_PG or
BUFFER_QUEUE table at once (_rest_repeats). What it builds must be what reading every row builds: each queue's
scheduler, ECN and buffer profile, each queue's and PG's source (its own entry and line), the issues and the clashes,
whatever a later run changes (a field, a row more or less, a range key, a port name written with a blank, a value
that is no text)."""

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
        "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}},  # (a saved config names its release: 202211)
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


def _replace_queue_rows(tables: dict, port: str, rows: dict, table: str = "QUEUE") -> None:
    """The QUEUE (or ``table``) table with ``port``'s rows replaced by ``rows`` where the port's first row stood."""
    out: dict = {}
    for key, fields in tables[table].items():
        if key.rpartition("|")[0] == port:
            out.update(rows)
            rows = {}
        else:
            out[key] = fields
    tables[table] = out


def _single(tables: dict) -> None:
    """BUFFER_PG and BUFFER_QUEUE written with a key per index (`Ethernet0|3`, `Ethernet0|4`), as SONiC's templates
    write them: runs of two rows, one PG or queue each."""
    for table in ("BUFFER_PG", "BUFFER_QUEUE"):
        tables[table] = {f"{key[:-4]}|{i}": dict(fields) for key, fields in tables[table].items() for i in (3, 4)}


def _in_single(edit) -> object:
    """``edit`` of the tables as _single writes them."""
    return lambda t: (_single(t), edit(t))


def _rekeyed(table: str, port: str, *keys: str) -> object:
    """``port``'s rows of ``table`` (BUFFER_PG, BUFFER_QUEUE, as _single writes them) written under ``keys``."""
    return _in_single(lambda t: _replace_queue_rows(t, port, {key: t[table][f"{port}|3"] for key in keys}, table))


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
    # (the rest of a table taken at once when every later port repeats the first port's rows: _Builder._rest_repeats)
    "a port name with a newline": lambda t: _replace_queue_rows(t, "Ethernet12", {
        f"Ethernet12\n|{q}": dict(f) for q, f in QUEUE_FIELDS.items()}),
    "every port's index written with a newline after it": lambda t: t.update(QUEUE={
        (f"{key}\n" if key.endswith("|2") else key): fields for key, fields in t["QUEUE"].items()}),
    "the last port's rows a row short": lambda t: t["QUEUE"].pop("Ethernet20|7"),
    "PGs and buffer queues a key each": _single,
    "a later port's PG with another profile": _in_single(lambda t: t["BUFFER_PG"]["Ethernet8|4"].update(profile="eg")),
    "a later port's PGs as one range key": _rekeyed("BUFFER_PG", "Ethernet12", "Ethernet12|3-4"),
    "a later port's PGs in the other order": _rekeyed("BUFFER_PG", "Ethernet12", "Ethernet12|4", "Ethernet12|3"),
    "a later port's PG keys without a port name": _rekeyed("BUFFER_PG", "Ethernet20", "|3", "|4"),
    "a later port's PG keys with a blank": _rekeyed("BUFFER_PG", "Ethernet8", " Ethernet8|3", " Ethernet8|4"),
    "a later port's PG keys naming two ports": _rekeyed("BUFFER_PG", "Ethernet8", "Ethernet8,Ethernet9|3",
                                                        "Ethernet8,Ethernet9|4"),
    "a later port's buffer queue keys with a newline": _rekeyed("BUFFER_QUEUE", "Ethernet4", "Ethernet4\n|3",
                                                                "Ethernet4\n|4"),
    "the first port's buffer queue keys with a bar more": _rekeyed("BUFFER_QUEUE", "Ethernet0", "x|Ethernet0|3",
                                                                   "x|Ethernet0|4"),
    "a later port's buffer queue of a number": _in_single(lambda t: t["BUFFER_QUEUE"]["Ethernet16|3"].update(
        profile=1)),
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
    monkeypatch.setattr(sonic._Builder, "_rest_repeats", lambda *args: False)
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


@pytest.mark.parametrize("variant", ["alike", "PGs and buffer queues a key each"])
def test_a_table_whose_later_ports_repeat_the_first_is_taken_at_once(variant, monkeypatch):
    """Where every later port's rows repeat the first port's (the usual switch), the rest of the table is taken in one
    step (_Builder._rest_repeats): QUEUE's runs of 8 rows and, a key per index, BUFFER_PG's and BUFFER_QUEUE's of 2."""
    taken: list[int] = []
    real = sonic._Builder._rest_repeats

    def counted(self, keys, *args):
        done = real(self, keys, *args)
        taken.append(len(keys) if done else 0)
        return done

    monkeypatch.setattr(sonic._Builder, "_rest_repeats", counted)
    device = _seen(_edited(VARIANTS[variant]))[0]
    assert not device["issues"]
    assert taken == ([len(PORTS) * 8] if variant == "alike" else [len(PORTS) * 8, len(PORTS) * 2, len(PORTS) * 2])
