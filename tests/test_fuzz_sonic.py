"""Whatever JSON (or non-JSON) arrives, the SONiC parser gives a Device or an InputError, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from losslessd.errors import InputError
from losslessd.model import Device
from losslessd.model.validate import check as check_model
from losslessd.parse.base import Input
from losslessd.parse.sonic import parse
from losslessd.parse.sonic.configdb import TABLES

RAW = Path(__file__).parent / "fixtures" / "raw" / "sonic"
REAL = [json.loads((RAW / name).read_text()) for name in ("nested_config_db.json", "flat_config_db.json")]

FIELDS = ["speed", "mtu", "admin_status", "hostname", "pfc_enable", "pfcwd_sw_enable", "dscp_to_tc_map",
          "tc_to_pg_map", "tc_to_queue_map", "pfc_to_queue_map", "dot1p_to_tc_map", "scheduler", "wred_profile",
          "type", "weight", "ecn", "green_min_threshold", "green_max_threshold", "green_drop_probability", "profile",
          "pool", "size", "xon", "xoff", "dynamic_th", "static_th", "headroom_type", "mode", "detection_time",
          "restoration_time", "action", "POLL_INTERVAL", "over_subscribe_ratio", "Ethernet0", "3", "value"]
KEYS = ["localhost", "global", "GLOBAL", "AZURE", "Ethernet0", "Ethernet4", "Ethernet0|3", "Ethernet0|3-4",
        "Ethernet0,Ethernet4|0-2", "Ethernet0|", "|3", "Ethernet0|4-3", "Ethernet0|1|2", "scheduler.1", "p", "3"]
TEXTS = ["3,4", "3-4", "", "NULL", "AZURE", "[SCHEDULER|scheduler.1]", "[BUFFER_PROFILE|p]", "[X|", "ecn_all",
         "DWRR", "STRICT", "up", "down", "dynamic", "100000", "-8", "300m", "1e999", "nan", "9" * 40, "5 furlongs"]

scalars = st.one_of(st.sampled_from(TEXTS), st.text(max_size=12), st.integers(), st.floats(), st.booleans(), st.none())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                             max_size=3), max_leaves=6)
entries = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), values, max_size=6)
tables = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), entries | values, max_size=5)
table_names = st.sampled_from(sorted(TABLES))
nested = st.dictionaries(table_names | st.text(max_size=8), tables | values, max_size=8)
flat = st.dictionaries(st.builds(lambda t, k: f"{t}|{k}", table_names, st.sampled_from(KEYS) | st.text(max_size=8)),
                       entries | values, max_size=10)


def _check(text: str) -> None:
    try:
        device = parse([Input("fuzz.json", text)], "fuzz")
    except InputError as exc:
        assert exc.file == "fuzz.json"
        return
    assert isinstance(device, Device)
    # SYS004: a reference into a table the (partial) document lacks, e.g. PORT_QOS_MAP without DSCP_TO_TC_MAP.
    assert {i.code for i in device.issues} <= {"SYS002", "SYS003", "SYS004"}
    check_model(device)  # every field of its declared type
    json.dumps(device.model_dump(mode="json"))  # reports serialise it


@settings(max_examples=200, deadline=None)
@given(st.one_of(nested, flat))
@example({"DEFAULT_LOSSLESS_BUFFER_PARAMETER": {"AZURE": {"over_subscribe_ratio": "2"}}})  # an int in a float field
def test_random_config_db_shaped_documents(doc):
    _check(json.dumps(doc))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200) | st.sampled_from(["[" * 100_000, '{"PORT": {"E": {"mtu": ' + "9" * 5000 + "}}}"]))
def test_arbitrary_text(text):
    _check(text)


def _mutate(doc, data) -> None:
    """Drop a key, swap a value's type or garble a string somewhere inside ``doc``."""
    node = doc
    while isinstance(node, dict) and node:
        key = data.draw(st.sampled_from(sorted(node)))
        child = node[key]
        if not isinstance(child, dict) or not child or data.draw(st.booleans()):
            action = data.draw(st.sampled_from(["drop", "swap", "garble"]))
            if action == "drop":
                del node[key]
            elif action == "swap":
                node[key] = data.draw(st.sampled_from([None, 7, -1, 2.5, True, [], ["3"], {}, {"x": "y"}, "NULL"]))
            elif isinstance(child, str):
                cut = data.draw(st.integers(0, len(child)))
                node[key] = child[:cut] + data.draw(st.text(max_size=4)) + child[cut + 1:]
            return
        node = child


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(range(len(REAL))), st.data())
def test_mutations_of_real_configs(which, data):
    doc = json.loads(json.dumps(REAL[which]))
    for _ in range(data.draw(st.integers(1, 6))):
        _mutate(doc, data)
    _check(json.dumps(doc, indent=4))
