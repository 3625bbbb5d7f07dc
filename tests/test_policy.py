"""Policies: shipped profiles validate; errors name file, line and JSON path; extends merges."""

from __future__ import annotations

import pytest

from losslessd.errors import InputError
from losslessd.policy import load_policy, shipped
from tests.clirun import losslessd


def test_shipped_profiles_load_and_differ():
    names = set(shipped())
    assert {"roce-dscp26", "sonic-azure", "pfc-only"} <= names
    dscp26, azure, pfc_only = (load_policy(n) for n in ("roce-dscp26", "sonic-azure", "pfc-only"))
    assert (dscp26.lossless.priorities, dscp26.lossless.dscp) == ([3], [26])
    assert dscp26.cnp is not None and (dscp26.cnp.dscp, dscp26.cnp.priority, dscp26.cnp.strict) == (48, 6, True)
    assert (azure.lossless.priorities, azure.lossless.dscp) == ([3, 4], [3, 4])
    assert pfc_only.ecn.required is False and dscp26.ecn.required is True


def test_extends_merges_mappings_and_replaces_scalars(tmp_path):
    (tmp_path / "site.yaml").write_text(
        "name: site\nextends: roce-dscp26\nwatchdog:\n  detection_time_ms: {min: 150}\n")
    pol = load_policy(tmp_path / "site.yaml")
    assert pol.watchdog.detection_time_ms.min == 150
    assert pol.watchdog.detection_time_ms.max == 1000  # mappings merge key by key: max is inherited
    assert pol.watchdog.restoration_time_ms.max == load_policy("roce-dscp26").watchdog.restoration_time_ms.max
    assert pol.lossless.dscp == [26]


def test_extends_relative_file_and_loop(tmp_path):
    (tmp_path / "a.yaml").write_text("name: a\nextends: b.yaml\n")
    (tmp_path / "b.yaml").write_text("name: b\nextends: a.yaml\n")
    with pytest.raises(InputError, match="loop"):
        load_policy(tmp_path / "a.yaml")


def test_schema_error_names_file_line_and_path(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nlossless:\n  priorities: [3, 9]\n  dscp: [26]\n")
    with pytest.raises(InputError) as exc:
        load_policy(bad)
    err = exc.value
    assert err.file == str(bad.resolve())
    assert err.line == 3
    assert err.pointer == "/lossless/priorities/1"
    assert "maximum" in err.message or "7" in err.message


def test_unknown_key_lists_allowed(tmp_path):
    bad = tmp_path / "typo.yaml"
    bad.write_text("name: typo\necn:\n  requried: true\n")
    with pytest.raises(InputError) as exc:
        load_policy(bad)
    assert exc.value.line == 3 and "requried" in exc.value.message and "required" in exc.value.message


def test_invalid_yaml_has_line(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("name: x\nlossless:\n  priorities: [3\n")
    with pytest.raises(InputError) as exc:
        load_policy(bad)
    assert exc.value.line is not None and "invalid YAML" in exc.value.message


def test_unknown_extends_names_shipped(tmp_path):
    (tmp_path / "p.yaml").write_text("name: p\nextends: nope\n")
    with pytest.raises(InputError, match="shipped"):
        load_policy(tmp_path / "p.yaml")


def test_policy_check_cli(tmp_path):
    ok = losslessd("policy", "check", "pfc-only")
    assert ok.returncode == 0
    assert "pfc-only: ok (policy pfc-only: DSCP 26 -> priority 3 lossless by PFC alone; ECN not required)" in ok.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nwatchdog:\n  detection_time_ms: {min: fast}\n")
    res = losslessd("policy", "check", str(bad))
    assert res.returncode == 2
    assert f"{bad.resolve()}:3" in res.stderr and "/watchdog/detection_time_ms/min" in res.stderr
    assert "Traceback" not in res.stderr


def test_errors_are_in_the_files_words_with_line_and_path(tmp_path):
    """Pydantic validates; each error reads as the file's path and value, never "Input should be"."""
    cases = {"lossless:\n  dscp: [26, 64]\n": (2, "/lossless/dscp/1", "`lossless.dscp.1` must be at most 63, not 64"),
             "ecn:\n  required: 'yes'\n": (2, "/ecn/required", "`ecn.required` must be true or false, not 'yes'"),
             "cnp: {priority: 6}\n": (1, "/cnp/dscp", "`cnp.dscp` is required"),
             "lossless: {priorities: [3, 4, 3]}\n": (1, "/lossless/priorities", "3 is listed twice"),
             "watchdog:\n  actions: [drop, shout]\n": (2, "/watchdog/actions/1", "must be one of drop, forward")}
    for text, (line, where, says) in cases.items():
        (tmp_path / "p.yaml").write_text("name: p\n" + text)
        with pytest.raises(InputError) as exc:
            load_policy(tmp_path / "p.yaml")
        assert (exc.value.line, exc.value.pointer) == (line + 1, where) and says in exc.value.message, exc.value
        assert "Input should" not in exc.value.message


def test_a_child_min_above_its_parents_max_names_the_childs_line(tmp_path):
    (tmp_path / "site.yaml").write_text(
        "name: site\nextends: roce-dscp26\nwatchdog:\n  detection_time_ms: {min: 5000}\n")
    with pytest.raises(InputError) as exc:
        load_policy(tmp_path / "site.yaml")
    assert (exc.value.file, exc.value.line) == (str(tmp_path / "site.yaml"), 4)
    assert "min 5000 is above max 1000" in exc.value.message


@pytest.mark.parametrize(("stem", "named"), [("leaf-policy-v2", "leaf-policy-v2"), ("p" * 64, "p" * 64),
                                             ("leaf_policy.v2", None), ("Prod-RoCE", None), ("p" * 65, None),
                                             ("a b", None), ("x\ninterface Ethernet1", None), ("\u202eevil", None)])
def test_a_policy_that_names_itself_nowhere_takes_a_file_name_that_is_a_name(tmp_path, stem, named):
    """The name goes into reports, logs and each rendered snippet's first line: a file name with a space, a newline
    or a control character is refused (give the policy a `name:`), not taken for one. The rule is `name:`'s (a stem
    `Prod_RoCE` was taken, though `name: Prod_RoCE` is refused)."""
    path = tmp_path / f"{stem}.yaml"
    path.write_text("lossless: {priorities: [3], dscp: [26]}\n", encoding="utf-8")
    if named is not None:
        assert load_policy(path).name == named
        return
    with pytest.raises(InputError, match="the policy names itself nowhere, and its file name .* is no policy name"):
        load_policy(path)
    path.write_text("name: fine\nlossless: {priorities: [3], dscp: [26]}\n", encoding="utf-8")
    assert load_policy(path).name == "fine"


@pytest.mark.parametrize(("name", "says"), [("p" * 65, "at most 64 characters"), ("Prod_RoCE", "must match")])
def test_a_name_longer_than_render_writes_is_refused_as_the_policy_loads(tmp_path, name, says):
    """One rule for a policy's name: a 70-character `name:` loaded and linted, then render refused it asking for a
    `name:` (the policy had one)."""
    path = tmp_path / "p.yaml"
    path.write_text(f"name: {name}\nlossless: {{priorities: [3], dscp: [26]}}\n", encoding="utf-8")
    with pytest.raises(InputError, match=says) as exc:
        load_policy(path)
    assert (exc.value.file, exc.value.line) == (str(path), 1)
    path.write_text(f"name: {'p' * 64}\nlossless: {{priorities: [3], dscp: [26]}}\n", encoding="utf-8")
    assert load_policy(path).name == "p" * 64
