"""losslessd.rfc6902 against jsonpatch, the library SONiC's generic config updater applies `config apply-patch`
patches with (sonic-utilities gu_common.py PatchWrapper.simulate_patch): `fix` applies and re-lints its patches with
rfc6902.apply, so both must leave the same CONFIG_DB, keys with the pointer's own characters ('/', '~') included."""

from __future__ import annotations

import jsonpatch
import pytest

from losslessd import rfc6902

CURRENT = {"QUEUE": {"Ethernet0|3-4": {"scheduler": "s1"}, "Eth/1~0|3": {"wred_profile": "W"}},
           "PORT": {"Ethernet0": {"mtu": "9100"}}}


@pytest.mark.parametrize("patch", [
    [{"op": "remove", "path": rfc6902.pointer("QUEUE", "Ethernet0|3-4")},
     {"op": "add", "path": rfc6902.pointer("QUEUE", "Ethernet0|3"), "value": {"scheduler": "s1"}},
     {"op": "add", "path": rfc6902.pointer("QUEUE", "Ethernet0|4"), "value": {"scheduler": "s2"}}],
    [{"op": "replace", "path": rfc6902.pointer("QUEUE", "Eth/1~0|3", "wred_profile"), "value": "R"}],
    [{"op": "remove", "path": rfc6902.pointer("QUEUE", "Eth/1~0|3")}],
    [{"op": "add", "path": rfc6902.pointer("BUFFER_QUEUE"), "value": {"Ethernet0|6": {"profile": "p"}}}],
    rfc6902.merge_ops(CURRENT, {"PORT": {"Ethernet0": {"mtu": "9100", "speed": "100000"}},
                                "QUEUE": {"Eth/1~0|3": {"wred_profile": "W", "scheduler": "s3"}}}),
])
def test_apply_leaves_what_jsonpatch_leaves(patch):
    assert rfc6902.apply(CURRENT, patch) == jsonpatch.JsonPatch(patch).apply(CURRENT)
    assert CURRENT["QUEUE"]["Ethernet0|3-4"] == {"scheduler": "s1"}  # the input is not changed


def test_merge_ops_merge_like_config_load():
    current = {"QUEUE": {"Ethernet0|3": {"scheduler": "[SCHEDULER|s]", "wred_profile": "[WRED_PROFILE|A]"}}}
    snippet = {"QUEUE": {"Ethernet0|3": {"wred_profile": "[WRED_PROFILE|B]"}, "Ethernet4|3": {"wred_profile": "x"}},
               "WRED_PROFILE": {"B": {"ecn": "ecn_all"}}}
    assert rfc6902.merge_ops(current, snippet) == [
        {"op": "add", "path": "/QUEUE/Ethernet0|3/wred_profile", "value": "[WRED_PROFILE|B]"},
        {"op": "add", "path": "/QUEUE/Ethernet4|3", "value": {"wred_profile": "x"}},
        {"op": "add", "path": "/WRED_PROFILE", "value": {"B": {"ecn": "ecn_all"}}}]
    assert rfc6902.merge_ops(current, {"QUEUE": {"Ethernet0|3": {"wred_profile": "[WRED_PROFILE|A]"}}}) == []
    assert rfc6902.merge_ops({"T": {"a/b": {}}}, {"T": {"a/b": {"f": "1"}}})[0]["path"] == "/T/a~1b/f"


@pytest.mark.parametrize(("patch", "error"), [
    ({"op": "add", "path": "/PORT", "value": {}}, ValueError),  # not a list of operations
    ([{"op": "replace", "path": "/QUEUE/Ethernet0|5", "value": {}}], KeyError),  # nothing to replace
    ([{"op": "remove", "path": "/QUEUE/Ethernet0|5"}], KeyError),  # nothing to remove
    ([{"op": "move", "from": "/PORT", "path": "/P"}], ValueError),  # no operation losslessd writes
    ([{"op": "add", "path": "", "value": {}}], ValueError),  # the whole document
])
def test_what_apply_refuses(patch, error):
    with pytest.raises(error):
        rfc6902.apply(CURRENT, patch)
    if isinstance(patch, list) and patch[0]["op"] in ("replace", "remove"):  # jsonpatch refuses them too
        with pytest.raises(jsonpatch.JsonPatchConflict):
            jsonpatch.JsonPatch(patch).apply(CURRENT)
