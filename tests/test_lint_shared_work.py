"""Rules once per configuration (lint/groups.py) and the parallel lint (losslessd.fabric) change nothing:
every test input gives the same findings (codes, messages, sources, order) with grouping on and off, and
in worker processes as in one; one port set apart from its identical neighbours is found, and only it."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from losslessd import fabric as fabric_mod
from losslessd.limits import usable_cores
from losslessd.lint.engine import Context, is_local, run
from losslessd.lint.finding import Severity
from losslessd.lint.registry import Rule, select
from losslessd.model import Device, DeviceKind, Ecn, Fabric, Model, Port, Queue, Scheduler, SchedulerType, Source, Trust
from losslessd.paths.view import Ref, device_view, path_facts
from losslessd.policy import load_policy
from tests import rulecase
from tests.clirun import losslessd
from tests.conftest import CORPUS, FIXTURES, ROOT
from tests.hostile import hostile_fleet
from tests.realworld.test_realworld import CASES as REALWORLD
from tests.realworld.test_realworld import _input, _policy

POLICIES = ("roce-dscp26", "sonic-azure", "pfc-only")
RULES = select()


def _rows(findings) -> list[tuple]:
    """Everything a report shows of each finding, in order."""
    return [(f.code, f.severity.value, f.device, f.port, f.key, f.message, f.unverified, f.devices,
             f.source.as_tuple() if f.source else None, json.dumps(f.data, sort_keys=True, default=str))
            for f in findings]


def _same_either_way(fab: Fabric, policy) -> list[tuple]:
    grouped = _rows(run(fab, policy, RULES, grouping=True).findings)
    plain = _rows(run(fab, policy, RULES, grouping=False).findings)
    assert grouped == plain
    return grouped


def _file_inputs() -> list[tuple[str, list[Path], str | None, str]]:
    """(id, paths, --format, policy) for every golden fixture, real-world fixture, corpus file and example."""
    out = []
    for platform_dir in sorted((FIXTURES / "raw").iterdir()):
        for case in sorted(platform_dir.iterdir()):
            if not case.name.startswith("."):
                out += [(f"raw/{platform_dir.name}/{case.name} {p}", [case], platform_dir.name, p) for p in POLICIES]
    for case_id, exp, corpus in REALWORLD:
        if corpus is None or (corpus / "SOURCES.md").is_file():
            spec = yaml.safe_load(exp.read_text(encoding="utf-8"))
            out.append((f"realworld/{case_id}", [_input(exp, spec, corpus)], spec.get("format"),
                        _policy(exp, spec["policy"])))
    if (CORPUS / "SOURCES.md").is_file():
        for path in sorted(p for p in CORPUS.rglob("*") if p.suffix in (".cfg", ".conf") or p.name == "config_db.json"):
            out += [(f"corpus/{path.relative_to(CORPUS)} {p}", [path], None, p) for p in POLICIES]
    out += [(f"examples/fabric {p}", [ROOT / "examples" / "fabric"], None, p) for p in POLICIES]
    for folder in sorted((FIXTURES / "topology").iterdir()):
        if folder.is_dir():
            out += [(f"topology/{folder.name} {p}", [folder], None, p) for p in POLICIES]
    return out


FILE_INPUTS = _file_inputs()


@pytest.mark.parametrize("paths,fmt,policy", [c[1:] for c in FILE_INPUTS], ids=[c[0] for c in FILE_INPUTS])
def test_every_input_gives_the_same_findings_with_grouping_on_and_off(paths, fmt, policy):
    _same_either_way(fabric_mod.load_fabric(paths, fmt), load_policy(policy))


def _rule_case_ids() -> list[tuple[str, int]]:
    return [(path.stem, i) for path in sorted(rulecase.CASES_DIR.glob("*.yaml"))
            for i, _ in enumerate(rulecase.load_cases(path.stem)["cases"])]


@pytest.mark.parametrize("code,index", _rule_case_ids(), ids=[f"{c}-{i}" for c, i in _rule_case_ids()])
def test_every_rule_case_gives_the_same_findings_with_grouping_on_and_off(code, index):
    spec = rulecase.load_cases(code)
    _same_either_way(*rulecase.fabric_for(spec, spec["cases"][index], index))


@pytest.mark.slow
@pytest.mark.parametrize("folder", [ROOT / "examples" / "fabric", FIXTURES / "topology" / "clos",
                                    ROOT / "tests" / "realworld"], ids=["example", "clos", "realworld"])
def test_worker_processes_give_the_findings_of_one_process(folder):
    """In workers (which send back what the parent needs of each device, and parse a device again when a link
    rule asks for its ports) as in one process: same findings, same selection, same devices."""
    policy = load_policy("roce-dscp26")
    one = fabric_mod.lint([folder], policy, RULES, jobs=1)
    two = fabric_mod.lint([folder], policy, RULES, jobs=2)
    assert _rows(two.findings) == _rows(one.findings) and one.findings
    assert two.selection == one.selection
    assert list(two.fabric.devices) == list(one.fabric.devices)
    assert [i.message for i in two.fabric.issues] == [i.message for i in one.fabric.issues]
    name = next(iter(one.fabric.devices))
    assert two.fabric.devices[name].model_dump(mode="json") == one.fabric.devices[name].model_dump(mode="json")


@pytest.mark.slow
@pytest.mark.parametrize("hosts", ["as captured", "all pausing priority 4"])
def test_link_rules_in_workers_leave_the_ports_where_they_were_parsed(tmp_path, hosts):
    """Every host of a fleet reports its LLDP neighbour, so every device is on a link: the link rules compare
    what each worker sent of its ports (lnk.PortView) and cite what it sent of the hosts' sources (lnk.Cited: a
    capture's lines), so the parent parses again only a switch whose CONFIG_DB a link finding points into (it used
    to parse every linked device again, one after the other; then every host when they all disagreed with their
    switch, as a fleet does after one wrong NIC setting)."""
    shutil.copytree(ROOT / "examples" / "fabric" / "leaf1", tmp_path / "leaf1")
    for capture in (ROOT / "examples" / "fabric").glob("gpu0*.capture"):
        text = capture.read_text()
        if hosts != "as captured":
            text = text.replace("\tenabled     0   0   0   1   0", "\tenabled     0   0   0   0   1")
        (tmp_path / capture.name).write_text(text)
    policy = load_policy("roce-dscp26")
    one = fabric_mod.lint([tmp_path], policy, RULES, jobs=1)
    two = fabric_mod.lint([tmp_path], policy, RULES, jobs=2)
    assert _rows(two.findings) == _rows(one.findings)
    linked = {end.device for link in two.fabric.links for end in (link.a, link.b)}
    with_link_findings = {f.device for f in two.findings if f.code.startswith("LNK")}
    captured = {name for name, d in two.fabric.devices.items() if d.kind.value == "host"}
    assert len(linked) >= 4 and with_link_findings & captured
    if hosts != "as captured":
        assert captured & linked <= with_link_findings  # (gpu05 and gpu06 hang off leaf2, not linted here)
    assert {name for name, d in two.fabric.devices.items() if _parsed_again(d)} == with_link_findings - captured


def test_path_rules_in_workers_leave_the_ports_where_they_were_parsed(monkeypatch):
    """With a topology the path and deadlock rules read the ports of every cabled device: in a parallel lint they
    read what each worker sent of them (paths/view.py) and the parent parses a device again only for the source of
    a finding on it (it used to parse every device again, one after the other: slower than no workers). Counted
    where this process parses, so that a view asked for a part its worker did not send (which parses the device
    again into the view, not into the device) counts too."""
    folder = ROOT / "examples" / "fabric"
    policy = load_policy("roce-dscp26")
    one = fabric_mod.lint([folder], policy, RULES, jobs=1)
    parsed_here: list[str] = []
    parse = fabric_mod.parse_group

    def counted(name, *args):
        parsed_here.append(name)
        return parse(name, *args)

    monkeypatch.setattr(fabric_mod, "parse_group", counted)  # (a worker's parses are in its own process)
    two = fabric_mod.lint([folder], policy, RULES, jobs=2)
    assert two.fabric.routing is not None and _rows(two.findings) == _rows(one.findings)
    on_paths = {f.device for f in two.findings if f.device and f.code[:3] in ("PTH", "DLK", "LNK")}
    assert {"PTH001", "DLK001"} <= {f.code for f in two.findings}
    assert {name for name, d in two.fabric.devices.items() if _parsed_again(d)} == on_paths
    assert sorted(parsed_here) == sorted(on_paths)
    assert len(on_paths) < len(two.fabric.devices)


def _parsed_again(device) -> bool:
    """A device a worker sent whose ports were asked for in this process (LazyDevice parses it again for them)."""
    try:
        object.__getattribute__(device, "ports")
    except AttributeError:
        return False
    return True


class _SentOver:
    """engine.LocalResults as a parallel lint's parent has them, made in this process: what the device's worker
    would send each fabric rule (Rule.device_facts, through pickle); no rule run by a worker."""

    codes: frozenset[str] = frozenset()

    def __init__(self, fabric: Fabric, policy):
        import pickle

        worker = Context(fabric, policy)
        self._selection = {id(d): worker.selection(d) for d in fabric.devices.values()}
        self._facts = {id(d): pickle.loads(pickle.dumps({(r.facts_key or r.code): r().device_facts(worker, d)
                                                         for r in RULES if r.device_facts is not Rule.device_facts}))
                       for d in fabric.devices.values()}

    def findings(self, devices):
        return []

    def selection(self, device):
        return self._selection[id(device)]

    def facts(self, code, device):
        return self._facts[id(device)].get(code)

    def crashed(self, devices):
        return []

    def crashes(self, device, code):
        return []


_PATH_CASES = [(code, i) for code, i in _rule_case_ids() if code[:3] in ("PTH", "DLK", "LNK")]
_FABRIC_RULES = [r for r in RULES if not is_local(r)]


def _same_from_what_workers_send(fab: Fabric, policy) -> list[tuple]:
    sent = _rows(run(fab, policy, _FABRIC_RULES, local=_SentOver(fab, policy)).findings)
    assert sent == _rows(run(fab, policy, _FABRIC_RULES).findings)
    return sent


@pytest.mark.parametrize("code,index", _PATH_CASES, ids=[f"{c}-{i}" for c, i in _PATH_CASES])
def test_every_path_rule_case_reads_the_same_from_what_workers_send(code, index):
    """Each path, deadlock and link rule case, checked on the facts a worker would send (ports without their
    sources, configured-alike ports sharing one template), gives the findings of the model."""
    spec = rulecase.load_cases(code)
    _same_from_what_workers_send(*rulecase.fabric_for(spec, spec["cases"][index], index))


@pytest.mark.parametrize("folder", [ROOT / "examples" / "fabric", FIXTURES / "topology" / "clos"],
                         ids=["example", "clos"])
def test_path_findings_point_where_they_point_in_one_process(folder):
    """The sources of path findings (Refs in what a worker sends, resolved on the device): the same, also where
    ports configured alike differ in which sources they have (a trust written on one, the default on the other),
    which then cannot share a template."""
    fab = fabric_mod.load_fabric([folder])
    policy = load_policy("roce-dscp26")
    _same_from_what_workers_send(fab, policy)
    ends = _switch_ends(fab)
    leaf = fab.devices[min(ends)[0]]
    ports = [p for name, p in leaf.ports.items() if (leaf.name, name) in ends][:2]
    assert len(ports) == 2
    for port, written in zip(ports, (True, False), strict=True):
        port.trust = Trust.pcp  # every path through these ports breaks here, on the trust
        port.trust_source = Source(file="trust-written-here", line=7) if written else None
    found = _same_from_what_workers_send(fab, policy)
    sources = {f[3]: f[8] for f in found if f[0] == "PTH001" and f[2] == leaf.name and "trusts" in f[5]}
    assert sources[ports[0].name][:2] == ("trust-written-here", 7)
    assert sources[ports[1].name] == ports[1].source.as_tuple()


def test_a_source_in_what_workers_send_is_the_one_at_its_place_on_the_port():
    """Every Ref in the ports a worker sends resolves, on the real device, to the source at the same place of the
    same port: also for an object two ports reach by different ways (SONiC shares a scheduler between every queue
    that names it; here one port has scheduler.0 on queue 0, the other on queue 6), and on the example fabric."""
    s0 = Scheduler(name="scheduler.0", type=SchedulerType.dwrr, weight=14, source=Source(file="db", line=10))
    s1 = Scheduler(name="scheduler.1", type=SchedulerType.strict, source=Source(file="db", line=20))
    crossed = Device(name="sw", kind=DeviceKind.switch, platform="sonic", ports={
        "Ethernet0": Port(name="Ethernet0", speed_gbps=100, queues={0: Queue(index=0, scheduler=s0),
                                                                    6: Queue(index=6, scheduler=s1)}),
        "Ethernet4": Port(name="Ethernet4", speed_gbps=400, queues={0: Queue(index=0, scheduler=s1),
                                                                    6: Queue(index=6, scheduler=s0)})})
    example = fabric_mod.load_fabric([ROOT / "examples" / "fabric"])
    policy = load_policy("roce-dscp26")
    checked = 0
    for fab in (Fabric(devices={"sw": crossed}), example):
        ctx = Context(fab, policy)
        for device in fab.devices.values():
            view = device_view(device, path_facts(ctx, device))
            for name, port in view.ports.items():
                for ref, real in _refs(port, device.ports[name]):
                    assert ref.resolve(device, name) is real, (device.name, name, ref)
                    checked += 1
    assert checked > 100


def _refs(sent, real):
    """(Ref, the source at its place in ``real``) for every source field below the model object ``sent``."""
    for f in dataclasses.fields(sent):
        value, there = getattr(sent, f.name), getattr(real, f.name)
        if isinstance(value, Ref):
            yield value, there
        elif isinstance(value, Model):
            yield from _refs(value, there)
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, Model):
                    yield from _refs(v, there[k])


def _switch_ends(fab: Fabric) -> set[tuple[str, str]]:
    """(switch, port) of every cable from a host."""
    kinds = {name: d.kind.value for name, d in fab.devices.items()}
    return {(e.device, e.port) for link in fab.links for e, o in ((link.a, link.b), (link.b, link.a))
            if kinds.get(e.device) == "switch" and kinds.get(o.device) == "host"}


def test_worker_count_follows_the_setting_and_the_fabric_size(monkeypatch):
    monkeypatch.delenv(fabric_mod.JOBS_ENV, raising=False)
    assert fabric_mod.worker_count(1, 10_000) == 1
    capped = fabric_mod.JOBS_PER_CORE * usable_cores()  # (2 on a 1-core machine)
    assert fabric_mod.worker_count(3, 10_000) == min(3, capped) and fabric_mod.worker_count(3, 2) == 2
    assert fabric_mod.worker_count(1_000_000, 2_000) == capped
    assert fabric_mod.worker_count(None, fabric_mod.PARALLEL_MIN_DEVICES - 1) == 1
    monkeypatch.setenv(fabric_mod.JOBS_ENV, "2")
    assert fabric_mod.worker_count(None, 5) == 2
    assert fabric_mod.worker_count(1, 5) == 1  # --jobs wins


@pytest.mark.parametrize("value", ["two", "-1", "1.5"])
def test_an_unusable_jobs_setting_is_a_usage_error_not_the_default(monkeypatch, value):
    monkeypatch.setenv(fabric_mod.JOBS_ENV, value)
    res = losslessd("lint", "examples/fabric")
    assert res.returncode == 2 and res.stdout == "", res.stderr
    assert res.stderr.startswith(f"losslessd: error: {fabric_mod.JOBS_ENV}={value!r} is not a number"), res.stderr


@pytest.mark.parametrize("sized", [fabric_mod.SIZED_FILES, 16], ids=["every-file-sized", "one-in-21-sized"])
def test_shares_are_runs_of_the_devices_of_about_the_same_cost(tmp_path, monkeypatch, sized):
    """A fabric lists its hosts apart from its switches, and a switch's CONFIG_DB costs as much as 20 host
    captures: shares cut by the files' size spread the switches over several shares (shares of as many devices
    put all 40 here into two), hold every device once, in order, and get smaller towards the end."""
    monkeypatch.setattr(fabric_mod, "SIZED_FILES", sized)
    groups = []
    for i in range(300):
        host = tmp_path / f"gpu{i:03d}.capture"
        host.write_bytes(b"x" * 4_000)
        groups.append((host.stem, [host]))
    for i in range(40):
        (tmp_path / f"leaf{i:02d}").mkdir()
        switch = tmp_path / f"leaf{i:02d}" / "config_db.json"
        switch.write_bytes(b"x" * 120_000)
        groups.append((switch.parent.name, [switch]))
    shares = fabric_mod._shares(groups, 2)
    assert [group for share in shares for group in share] == groups
    assert all(1 <= len(share) <= fabric_mod.SHARE_MAX_DEVICES for share in shares)
    assert len([share for share in shares if any(name.startswith("leaf") for name, _ in share)]) >= 4
    costs = [sum(files[0].stat().st_size + fabric_mod.DEVICE_BYTES for _, files in share) for share in shares]
    assert max(costs) <= 2 * sum(costs) / (2 * 4)  # a few shares per worker, none more than twice its part
    # Once half the fabric is shared out the shares shrink (by a switch at most between two), and the last is no
    # more than 1/LAST_SHARE_PART of a worker's part or one switch: the workers finish close together.
    switch = 120_000 + fabric_mod.DEVICE_BYTES
    half = next(i for i in range(len(costs)) if sum(costs[:i + 1]) >= sum(costs) / 2)
    tail = costs[half + 1:]
    assert len(tail) >= 3 and all(later <= earlier + switch for earlier, later in zip(tail, tail[1:], strict=False))
    assert costs[-1] <= max(sum(costs) / 2 / fabric_mod.LAST_SHARE_PART, switch) and costs[-1] < max(costs) / 4


# ---- one port set apart -------------------------------------------------------------------------------------
PORTS = 16
LEAF = ROOT / "examples" / "fabric" / "leaf1" / "config_db.json"


@pytest.fixture(scope="module")
def uniform_switch(tmp_path_factory) -> Path:
    """A 16-port SONiC leaf whose ports are all configured alike (the example leaf's Ethernet0, repeated)."""
    base = json.loads(LEAF.read_text(encoding="utf-8"))
    ports = [f"Ethernet{4 * i}" for i in range(PORTS)]
    cfg = {k: v for k, v in base.items() if k not in ("PORT", "PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE",
                                                     "CABLE_LENGTH", "PFC_WD", "DEVICE_NEIGHBOR")}
    cfg["PORT"] = {p: {**base["PORT"]["Ethernet0"], "alias": f"etp{i + 1}"} for i, p in enumerate(ports)}
    cfg["PORT_QOS_MAP"] = {p: dict(base["PORT_QOS_MAP"]["Ethernet0"]) for p in ports}
    cfg["QUEUE"] = {f"{p}|{q}": dict(base["QUEUE"][f"Ethernet0|{q}"]) for p in ports for q in range(8)}
    cfg["BUFFER_PG"] = {f"{p}|{g}": dict(base["BUFFER_PG"][f"Ethernet0|{g}"]) for p in ports for g in (0, 3)}
    cfg["CABLE_LENGTH"] = {"AZURE": {p: "5m" for p in ports}}
    cfg["PFC_WD"] = {p: {"action": "drop", "detection_time": "200", "restoration_time": "400"} for p in ports}
    folder = tmp_path_factory.mktemp("uniform") / "leaf9"
    folder.mkdir()
    (folder / "config_db.json").write_text(json.dumps(cfg, indent=2), encoding="utf-8")
    return folder


def _no_pfc(port, policy):
    port.pfc_enabled = []


def _pfc_on_lossy(port, policy):
    port.pfc_enabled = [*port.pfc_enabled, 5]


def _ecn_off(port, policy):
    q = port.queues[3]
    port.queues[3] = dataclasses.replace(q, ecn=Ecn(profile="NONE", ecn_enabled=False, source=q.source))


def _dscp_remapped(port, policy):
    # a map of its own (the others' shared one is left alone) sending the RoCE DSCPs to lossy TC 1
    port.dscp_to_tc = {**port.dscp_to_tc, **{dscp: 1 for dscp in policy.lossless.dscp}}


def _trust_pcp(port, policy):
    port.trust = Trust.pcp


def _long_cable(port, policy):
    port.cable_length_m = 2000.0


def _watchdog_off(port, policy):
    port.watchdog = dataclasses.replace(port.watchdog, enabled=False)


def _undefined_profile(port, policy):
    for index, pg in port.priority_groups.items():
        port.priority_groups[index] = dataclasses.replace(pg, profile="no_such_profile")


MUTATIONS = [_no_pfc, _pfc_on_lossy, _ecn_off, _dscp_remapped, _trust_pcp, _long_cable, _watchdog_off,
             _undefined_profile]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, PORTS - 1), mutation=st.sampled_from(MUTATIONS),
       policy=st.sampled_from(["roce-dscp26", "sonic-azure"]))
def test_one_port_set_apart_is_found_and_only_it(uniform_switch, index, mutation, policy):
    pol = load_policy(policy)
    fab = fabric_mod.load_fabric([uniform_switch])
    device = next(iter(fab.devices.values()))
    names = list(device.ports)

    def by_port(findings) -> dict[str, list[tuple]]:
        out: dict[str, list[tuple]] = {name: [] for name in names}
        for f in findings:
            if f.port in out:
                out[f.port].append((f.code, f.key, f.severity.value, f.message.replace(f.port, "PORT")))
        return out

    before = by_port(run(fab, pol, RULES).findings)
    assert len({tuple(v) for v in before.values()}) == 1  # alike: every port has the same findings
    mutation(device.ports[names[index]], pol)
    after_rows = _same_either_way(fab, pol)
    after = by_port(run(fab, pol, RULES).findings)
    changed = [name for name in names if after[name] != before[name]]
    assert changed == [names[index]], (mutation.__name__, changed)
    assert after_rows  # (the rows are also the same with grouping off: checked above)


# ---- hostile inputs in worker processes ---------------------------------------------------------------------
def _outcome(result) -> tuple:
    from losslessd.cli.lint import exit_code

    return (_rows(result.findings), [(i.code, i.message, i.source.as_tuple() if i.source else None)
                                      for i in result.fabric.issues],
            result.internal_errors, list(result.fabric.devices), exit_code(result, result.fails(Severity.warning)))


@pytest.mark.slow
@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_workers_read_within_the_limits_and_report_failures_as_one_process_does(tmp_path, monkeypatch, start):
    """A worker reads within the limits this process set (--max-file-mb; a spawned worker does not inherit
    them) and turns each refusal into the same SYS001, in the same place, as a lint in one process."""
    import multiprocessing

    from losslessd.limits import file_limit_mb

    folder = hostile_fleet(tmp_path)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: [start])
    policy = load_policy("roce-dscp26")
    with file_limit_mb(1):
        one, two = (_outcome(fabric_mod.lint([folder], policy, RULES, jobs=jobs)) for jobs in (1, 2))
    assert two == one
    messages = " | ".join(message for _, message, _ in one[1])
    for says in ("(a FIFO)", "1 MiB limit", "symbolic link loop", "(a folder)", "17,000 ports",
                 "deleted.cfg is a symbolic link to deleted-meanwhile.cfg, which is not there"):
        assert says in messages
    assert one[2] == [] and one[4] == 1 and "leaf1" in one[3]


@pytest.mark.slow
def test_a_worker_that_dies_leaves_the_lint_to_this_process_and_says_so(monkeypatch, caplog):
    """A worker killed mid-share (the kernel's OOM killer) is not a lint that checked less: the fabric is linted
    again in this process, with the findings of a run without workers, and a warning names the setting that
    skips the workers."""
    policy = load_policy("roce-dscp26")
    folder = ROOT / "examples" / "fabric"
    one = fabric_mod.lint([folder], policy, RULES, jobs=1)
    monkeypatch.setattr(fabric_mod, "_share", lambda *args: os._exit(9))  # forked workers inherit the plant
    with caplog.at_level("WARNING", logger="losslessd.fabric"):
        two = fabric_mod.lint([folder], policy, RULES, jobs=2)
    assert _rows(two.findings) == _rows(one.findings) and one.findings
    assert any("worker process died" in r.getMessage() and "LOSSLESSD_JOBS" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_a_parser_or_rule_bug_in_a_worker_is_an_internal_error_as_in_one_process(tmp_path, monkeypatch):
    """SYS900 and exit 3 (never findings, exit 1) when a parser, a rule or what a fabric rule reads of a device
    (Rule.device_facts, worked out in the worker) raises inside a worker process: the same messages, in the
    same order, as in one process."""
    from losslessd.parse import eos
    from losslessd.rules.nic import DcqcnParamsInconsistent, NicPfcMismatch
    from losslessd.rules.pfc import PfcDisabledOnLossless

    def broken_parser(inputs, name):
        raise KeyError("planted parser bug")

    def broken_rule(self, ctx, device, port):
        raise ZeroDivisionError("planted rule bug")

    def broken_facts(self, ctx, device):
        raise IndexError("planted facts bug")

    monkeypatch.setattr(eos, "parse", broken_parser)  # forked workers inherit the plants
    monkeypatch.setattr(PfcDisabledOnLossless, "check_port", broken_rule)
    monkeypatch.setattr(NicPfcMismatch, "check_port", broken_rule)  # on every host: several lines of one rule
    monkeypatch.setattr(DcqcnParamsInconsistent, "device_facts", broken_facts)
    policy = load_policy("roce-dscp26")
    folder = tmp_path / "fabric"
    shutil.copytree(ROOT / "examples" / "fabric", folder)
    # gpu04 configured as gpu02: a grouped run meets the hosts class by class (gpu01, gpu02, gpu04, gpu03, ...)
    (folder / "gpu04.capture").write_text((folder / "gpu02.capture").read_text().replace("gpu02", "gpu04"))
    one, two = (_outcome(fabric_mod.lint([folder], policy, RULES, jobs=jobs)) for jobs in (1, 2))
    assert two == one
    assert one[4] == 3
    assert any("the parser failed on" in e and "KeyError: 'planted parser bug'" in e for e in one[2])
    assert any(e.startswith("leaf1: rule PFC001") and "ZeroDivisionError" in e for e in one[2])
    hosts = [e.split(": rule NIC001")[0] for e in one[2] if ": rule NIC001" in e and "ZeroDivisionError" in e]
    assert hosts == [d for d in one[3] if d.startswith("gpu")] and len(hosts) == 6  # one line each, in fabric order
    assert any(e.startswith("rule NIC007") and "IndexError: planted facts bug" in e for e in one[2])
    assert {code for code, _, _ in one[1]} >= {"SYS900"}


@pytest.mark.slow
def test_a_parallel_lint_tells_the_same_progress_stages_as_one_process():
    """Reading is told share by share as the workers send their devices back, from 0 to all; the rules are told
    one by one, as in one process."""
    from losslessd import api

    calls: dict[int, list[tuple]] = {}
    for jobs in (1, 2):
        seen = calls[jobs] = []
        api.lint([ROOT / "examples" / "fabric"], jobs=jobs, progress=lambda *call, seen=seen: seen.append(call))
    one, two = ([c for c in calls[j] if c[0] == "devices"] for j in (1, 2))
    assert one[0][1:3] == two[0][1:3] == (0, 8) and one[-1][1:3] == two[-1][1:3] == (8, 8)
    assert [c[1] for c in two] == sorted(c[1] for c in two) and len(two) >= 2
    assert [c for c in calls[2] if c[0] == "rules"] == [c for c in calls[1] if c[0] == "rules"]
    assert calls[2].index(two[-1]) < calls[2].index(next(c for c in calls[2] if c[0] == "rules"))


_COUNT_WORKERS = """
import multiprocessing, os, sys
from losslessd import fabric
from losslessd.lint.registry import select
from losslessd.policy import load_policy
os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:int(sys.argv[1])]))
seen = [0]
def progress(stage, done, total, note):  # in the parent, as each share comes back, while the pool runs
    seen[0] = max(seen[0], len(multiprocessing.active_children()))
fabric.lint([sys.argv[2]], load_policy("roce-dscp26"), select(), jobs=int(sys.argv[3]), progress=progress)
print(seen[0])
"""


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs os.sched_setaffinity to pin the lint")
@pytest.mark.parametrize("cores", [1, 2])
def test_jobs_start_at_most_two_workers_a_usable_core(tmp_path, cores):
    """`--jobs 1000000` started one process per device; a real lint pinned to ``cores`` cores starts two a core
    (so a 1-core machine still takes the parallel path that tests force with jobs=2), and --jobs 2 gives 2."""
    import subprocess
    import sys
    if len(os.sched_getaffinity(0)) < cores:
        pytest.skip(f"this machine lets the tests use fewer than {cores} cores")
    for i in range(12):  # 12 devices: more than two workers a core on either
        shutil.copy(ROOT / "examples" / "fabric" / "spine1.cfg", tmp_path / f"spine{i}.cfg")
        text = (tmp_path / f"spine{i}.cfg").read_text().replace("hostname spine1", f"hostname spine{i}")
        (tmp_path / f"spine{i}.cfg").write_text(text)

    def started(jobs: int) -> int:
        run = subprocess.run([sys.executable, "-c", _COUNT_WORKERS, str(cores), str(tmp_path), str(jobs)],
                             capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                             check=True)
        return int(run.stdout.split()[-1])

    assert started(1_000_000) == fabric_mod.JOBS_PER_CORE * cores
    assert started(2) == 2
