"""The tuner reads and writes ECN on the egress queue that carries each lossless priority by the device's own maps
(SONiC TC_TO_QUEUE_MAP, EOS `qos map traffic-class to tx-queue`), the lookup the daemon's detectors use
(monitor.carrying_queues), never on the queue numbered like the priority; where the maps do not say, it refuses.
SONiC's patch file is a private `mktemp` file, removed whatever happens; sim-bench checks host keys by default."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from losslessd.errors import InputError
from losslessd.inventory import load
from losslessd.policy import load_policy
from losslessd.tune import candidate
from losslessd.tune.apply import EosPusher, PushError, SonicPusher
from losslessd.tune.session import Options, Tuner
from losslessd.tune.space import Candidate
from losslessd.tune.store import AS_FOUND, Store
from tests.peers import FABRIC, swapped_leaf1
from tests.test_tune_apply import _push, _setup

from .clirun import losslessd

POLICY = load_policy("roce-dscp26")
NEW = Candidate(300_000, 3_000_000, 20.0)
ROCE = (153600, 1572864, 100.0)  # examples/fabric/leaf1 WRED_PROFILE ROCE_LOSSLESS
UPLINK_KMIN = 6291456  # ... UPLINK_LOSSLESS green_min_threshold


def _leaf_tc3_on_queue4(folder: Path) -> Path:
    """leaf1 with TC 3 (priority 3's traffic) on queue 4 and TC 4 on queue 3, its ROCE-facing ports' queue 4 marking
    at ROCE_LOSSLESS and queue 3 (now priority 4's, lossy under roce-dscp26) at UPLINK_LOSSLESS."""
    path = swapped_leaf1(folder, tables=("TC_TO_QUEUE_MAP",)) / "leaf1" / "config_db.json"
    db = json.loads(path.read_text())
    for port in ("Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"):
        # (names alone: the form leaf1's release, VERSIONS version_4_0_3, takes)
        db["QUEUE"][f"{port}|4"]["wred_profile"] = "ROCE_LOSSLESS"
        db["QUEUE"][f"{port}|3"]["wred_profile"] = "UPLINK_LOSSLESS"
    path.write_text(json.dumps(db, indent=2))
    return folder


def _spine_tc3_on_queue4(folder: Path) -> Path:
    """spine1 (EOS) with `qos map traffic-class 3 to tx-queue 4` (EOS qos map syntax)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spine1.cfg").write_text((FABRIC / "spine1.cfg").read_text().replace(
        "qos map dscp 26 to traffic-class 3\n",
        "qos map dscp 26 to traffic-class 3\n"
        "qos map traffic-class 3 to tx-queue 4\nqos map traffic-class 4 to tx-queue 3\n",
        1))
    return folder


def test_the_tuner_reads_as_found_and_writes_ecn_on_the_queue_carrying_the_lossless_priority(tmp_path):
    text = (_leaf_tc3_on_queue4(tmp_path) / "leaf1" / "config_db.json").read_text()
    cfg = candidate.load("leaf1", "sonic", text, POLICY, ["Ethernet0"])
    assert cfg.queues == {"Ethernet0": [4]}
    # (before: queue 3's UPLINK_LOSSLESS, Kmin 6291456 B, read as priority 3's settings)
    assert candidate.ecn_settings(cfg, POLICY, text) == {"Ethernet0": ROCE}
    assert candidate.as_found(cfg, POLICY) == Candidate(*ROCE)
    cut = candidate.check(cfg, POLICY, NEW).snippet
    assert '"Ethernet0|4": {"wred_profile": "ROCE_LOSSLESS_300000_3000000"}' in cut
    assert "Ethernet0|3" not in cut


def test_an_eos_snippet_goes_on_the_tx_queue_the_traffic_class_map_names(tmp_path):
    text = (_spine_tc3_on_queue4(tmp_path) / "spine1.cfg").read_text()
    cfg = candidate.load("spine1", "arista_eos", text, POLICY, ["Ethernet1/1"])
    assert cfg.queues == {"Ethernet1/1": [4]}
    cut = candidate.check(cfg, POLICY, NEW).snippet
    # (spine1's own blocks say `uc-tx-queue`: the keyword its switch took, Device.config_family)
    assert "\n   uc-tx-queue 4\n      random-detect ecn minimum-threshold 300000 bytes" in cut
    assert "tx-queue 3" not in cut


def test_a_port_whose_maps_do_not_place_a_lossless_priority_is_refused(tmp_path):
    path = swapped_leaf1(tmp_path, tables=("TC_TO_QUEUE_MAP",)) / "leaf1" / "config_db.json"
    db = json.loads(path.read_text())
    db["PORT_QOS_MAP"]["Ethernet0"].pop("tc_to_queue_map")
    with pytest.raises(InputError, match=r"port Ethernet0: its config does not say which egress queue carries "
                                         r"lossless priority 3, .*leave the port out of --ports"):
        candidate.load("leaf1", "sonic", json.dumps(db), POLICY, ["Ethernet0"])
    db["PORT_QOS_MAP"]["Ethernet4"].pop("tc_to_queue_map")  # (render's one refusal: the first port, and how many more)
    with pytest.raises(InputError, match=r"^leaf1 \(running config\):\d+: port Ethernet0 \(and 1 more port\(s\)\): "):
        candidate.load("leaf1", "sonic", json.dumps(db), POLICY, ["Ethernet0", "Ethernet4"])


def test_fix_writes_the_missing_ecn_on_the_queue_carrying_the_lossless_priority(tmp_path):
    """render's one placement (Profile.ecn_queues) serves `fix` too: ECN001 on a port with TC 3 on queue 4 is fixed on
    queue 4 (it was written on queue 3, which carries priority 4's traffic); a port whose tc_to_queue_map is unbound
    gets no guess."""
    path = swapped_leaf1(tmp_path, tables=("TC_TO_QUEUE_MAP",)) / "leaf1" / "config_db.json"
    db = json.loads(path.read_text())
    for entry in db["QUEUE"].values():
        entry.pop("wred_profile", None)
    path.write_text(json.dumps(db))
    res = losslessd("fix", path)
    assert res.returncode == 1 and '"Ethernet0|4": {"wred_profile": ' in res.stdout, res.stderr
    assert '"Ethernet0|3"' not in res.stdout.split("diff with")[0]


def test_render_refuses_to_guess_the_queue_of_an_unmapped_lossless_priority(tmp_path):
    from losslessd import render

    prof = render.profile(POLICY, [render.PortFacts("Ethernet0", 100, 5, carries={4: [4]})], model="DCS-7050CX3-32S")
    with pytest.raises(InputError, match="port Ethernet0: its config does not say which egress queue carries "
                                         "lossless priority 3"):
        render.render("arista_eos", render.restrict(prof, {"ecn"}, ["Ethernet0"]))
    placed = render.profile(POLICY, [render.PortFacts("Ethernet0", 100, 5, carries={3: [5]})], model="DCS-7050CX3-32S")
    assert "uc-tx-queue 5\n      random-detect ecn" in render.render("arista_eos",
                                                                       render.restrict(placed, {"ecn"}, ["Ethernet0"]))


@pytest.mark.slow
def test_tune_apply_pushes_and_puts_back_ecn_on_the_carrying_queue(make_sim, tmp_path, monkeypatch):
    """End to end over SSH: every candidate lands on queue 4 (read back there), sim-bench (which reads queue 4)
    sees it, and the tune ends with queue 3 (priority 4's) as found."""
    sim = make_sim(["leaf1"], fabric=_leaf_tc3_on_queue4(tmp_path / "fabric"))
    for name, value in sim.env.items():
        monkeypatch.setenv(name, value)
    bench = [sys.executable, "-m", "losslessd", "sim-bench", "--inventory", str(sim.inventory_path), "--device",
             "leaf1", "--port", "Ethernet0", "--known-hosts", str(sim.known_hosts_path)]
    opts = Options(benchmark=bench, sizes=[8 * 2**20, 64 * 2**20], budget=2, noise_runs=1, apply=True,
                   known_hosts=sim.known_hosts_path, db=tmp_path / "tune.sqlite", ports={"leaf1": ["Ethernet0"]})
    t = Tuner(load(sim.inventory_path, sim.env), ["leaf1"], POLICY, opts, say=lambda line: None)
    t.load()
    assert t.found == Candidate(*ROCE)
    assert t.run() == 0
    with Store(tmp_path / "tune.sqlite") as store:
        tune = store.tune()
        pushed = [message for _, kind, _, message in store.events(tune.id) if kind == "pushed"]
    assert pushed and all("/QUEUE/Ethernet0|4/wred_profile" in m and "Ethernet0|3" not in m for m in pushed)
    db = json.loads(sim.running_config("leaf1"))
    assert db["QUEUE"]["Ethernet0|3"]["wred_profile"] == "UPLINK_LOSSLESS"  # (as found: _leaf_tc3_on_queue4)
    want = ROCE if tune.best == AS_FOUND else candidate.expected(t.configs["leaf1"], POLICY,
                                                                    Candidate.from_key(tune.best))["Ethernet0"]
    assert candidate.ecn_settings(t.configs["leaf1"], POLICY, sim.running_config("leaf1")) == {"Ethernet0": want}
    assert sim.devices["leaf1"].config.files == {}


def _spine_pusher(make_sim, tmp_path):
    """A simulated spine1 whose TC 3 goes on queue 4, its parsed running config and an open EOS pusher onto it."""
    sim = make_sim(["spine1"], snmp=False, fabric=_spine_tc3_on_queue4(tmp_path / "fabric"))
    host = load(sim.inventory_path, sim.env).hosts["spine1"]
    cfg = candidate.load("spine1", "arista_eos", sim.running_config("spine1"), POLICY, ["Ethernet1/1"])
    pusher = EosPusher(host, sim.known_hosts_path, 30.0, "losslessd-tune-test")
    pusher.open()
    return sim, cfg, pusher


@pytest.mark.slow
def test_an_eos_push_and_its_put_back_go_on_the_carrying_tx_queue(make_sim, tmp_path):
    sim, cfg, pusher = _spine_pusher(make_sim, tmp_path)
    try:
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
        assert "\n   uc-tx-queue 4\n" in origin["snippet"] and "tx-queue 3" not in origin["snippet"]
        want = candidate.expected(cfg, POLICY, NEW)
        pushed = pusher.push(candidate.check(cfg, POLICY, NEW).snippet, candidate.ecn_check(cfg, POLICY, want))
        assert pushed.changed
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config("spine1")) == want
        assert found == {"Ethernet1/1": None}  # (queue 4 marks nothing as found: no ECN there to compare with)
        pusher.restore(origin, candidate.ecn_check(cfg, POLICY, found), known=False)
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config("spine1")) == found
        assert "no random-detect ecn" in sim.devices["spine1"].config.log
    finally:
        pusher.close()


@pytest.mark.slow
def test_a_put_back_is_checked_on_a_port_whose_ecn_as_found_is_not_known(make_sim, tmp_path):
    """spine1's queue 4 (priority 3's) marks nothing as found, so ecn_settings knows no thresholds there and a put-back
    was not checked on it: one that left the candidate on the port was taken as done. The origin's ecn_states (each
    carrying queue as parsed) check it: a put-back that changes nothing fails naming the port (EOS: its commit is
    rolled back), the real one passes."""
    sim, cfg, pusher = _spine_pusher(make_sim, tmp_path)
    try:
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        states = candidate.ecn_states(cfg, POLICY, cfg.text)
        assert found == {"Ethernet1/1": None} and states == {"Ethernet1/1": [[4, False, None, None, None, None]]}
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
        want = candidate.expected(cfg, POLICY, NEW)
        pusher.push(candidate.check(cfg, POLICY, NEW).snippet, candidate.ecn_check(cfg, POLICY, want))
        with pytest.raises(PushError, match=r"Ethernet1/1's queues carrying lossless priorities hold queue 4: ECN on, "
                                            r"Kmin 300000 B, .* not queue 4: ECN off as found"):
            pusher.restore({"snippet": "interface Ethernet1/1\n!\n"}, candidate.ecn_check(cfg, POLICY, found, states))
        pusher.restore(origin, candidate.ecn_check(cfg, POLICY, found, states))
        assert candidate.ecn_states(cfg, POLICY, sim.running_config("spine1")) == states
    finally:
        pusher.close()


def _sonic(make_sim):
    sim = make_sim(["leaf1"], snmp=False)
    return sim, *_setup(sim, "leaf1", ["Ethernet0"], SonicPusher)


@pytest.mark.slow
def test_the_sonic_patch_file_is_a_new_private_file_removed_after_a_push_or_a_failure(make_sim):
    sim, cfg, pusher = _sonic(make_sim)
    state = sim.devices["leaf1"].config
    planted = "/tmp/losslessd-tune-test.json-patch"  # where another user of the switch could guess it was
    state.files[planted] = "[]"
    modes, apply_patch = [], state.sonic_apply_patch

    def spy(path):  # the file's mode as the switch's config command reads it
        modes.append(state.modes.get(path))
        return apply_patch(path)

    state.sonic_apply_patch = spy
    try:
        _push(cfg, pusher, NEW)
        state.refuse = "YANG validation failed"
        with pytest.raises(PushError, match="rolled back"):
            _push(cfg, pusher, Candidate(400_000, 4_000_000, 20.0))
        assert len(state.made) == 2 and len(set(state.made)) == 2 and planted not in state.made
        applied = [line.split()[-1] for line in state.log if line.startswith("config apply-patch")]
        assert applied == state.made  # each push wrote and applied its own mktemp file...
        assert modes == [0o600, 0o600]  # (mktemp's: only the login reads or writes it)
        assert state.files == {planted: "[]"}  # ...removed afterwards, the failed one too; the planted one untouched
    finally:
        pusher.close()


@pytest.mark.slow
def test_a_mktemp_answer_that_is_no_new_file_stops_the_push_before_any_change(make_sim):
    sim, cfg, pusher = _sonic(make_sim)
    state = sim.devices["leaf1"].config
    state.mktemp_answer = "mktemp: failed to create file via template '/tmp/losslessd-tune.XXXXXXXXXX': No space left"
    before = sim.running_config("leaf1")
    try:
        with pytest.raises(PushError, match="`mktemp` answered .*nothing pushed"):
            _push(cfg, pusher, NEW)
        assert sim.running_config("leaf1") == before and state.commits == 0
        assert state.checkpoints == {} and not [line for line in state.log if "apply-patch" in line]
    finally:
        pusher.close()


@pytest.mark.slow
@pytest.mark.parametrize("args", [[], ["--known-hosts", "{empty}"]])
def test_sim_bench_checks_host_keys_by_default(make_sim, tmp_path, args):
    sim = make_sim(["leaf1"], snmp=False)
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    (tmp_path / "home" / ".ssh" / "known_hosts").write_text("")  # the default file, without the simulator's key
    (tmp_path / "empty").write_text("")
    env = {**os.environ, **sim.env, "HOME": str(tmp_path / "home")}
    res = subprocess.run([sys.executable, "-m", "losslessd", "sim-bench", "--inventory", str(sim.inventory_path),
                          "--device", "leaf1", "--port", "Ethernet0",
                          *[a.format(empty=tmp_path / "empty") for a in args]],
                         capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parent.parent)
    assert res.returncode == 2, res.stderr
    assert re.search(r"leaf1: cannot log in: the host key of 127\.0\.0\.1:\d+ is not in .*ssh-keyscan", res.stderr)
    assert not res.stdout
    assert "Traceback" not in res.stderr
    assert sim.devices["leaf1"].config.log == []


@pytest.mark.slow
def test_a_pusher_refused_for_its_host_key_names_the_host_and_how_to_add_it(make_sim, tmp_path):
    sim = make_sim(["leaf1"], snmp=False)
    (tmp_path / "known_hosts").write_text("")
    pusher = SonicPusher(load(sim.inventory_path, sim.env).hosts["leaf1"], tmp_path / "known_hosts", 30.0, "t")
    said = r"leaf1: cannot log in: the host key of 127\.0\.0\.1:\d+ is not in .*ssh-keyscan"
    with pytest.raises(PushError, match=said):
        pusher.open()


@pytest.mark.slow
def test_a_tuner_without_apply_pushes_nothing(make_sim, tmp_path):
    """The CLI asks for --apply and a confirmation; the Tuner API itself refuses to push without Options.apply."""
    sim = make_sim(["leaf1"], snmp=False)
    opts = Options(benchmark=["true"], sizes=[], budget=1, noise_runs=1, apply=False,
                   known_hosts=sim.known_hosts_path, db=tmp_path / "tune.sqlite", ports={"leaf1": ["Ethernet0"]})
    t = Tuner(load(sim.inventory_path, sim.env), ["leaf1"], POLICY, opts, say=lambda line: None)
    t.load()
    with pytest.raises(InputError, match="only with --apply"):
        t.run()
    state = sim.devices["leaf1"].config
    assert state.log == [] and state.commits == 0 and not (tmp_path / "tune.sqlite").exists()


def test_sim_bench_takes_the_pfc_trigger_of_the_pg_the_maps_put_the_priority_in(tmp_path):
    """TC 3 in PG 4 (TC_TO_PRIORITY_GROUP_MAP): the benchmark's headroom and PFC trigger are PG 4's, not PG 3's."""
    from losslessd.sim.bench import port_settings

    db = json.loads((swapped_leaf1(tmp_path, tables=("TC_TO_QUEUE_MAP",)) / "leaf1" / "config_db.json").read_text())
    db["QUEUE"]["Ethernet0|4"]["wred_profile"] = "ROCE_LOSSLESS"  # (the form leaf1's release, 202211, takes)
    found = port_settings("sonic", "leaf1", json.dumps(db), "Ethernet0", 3, 8)
    assert found.headroom_bytes is not None
    db["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"].update({"3": "4", "4": "3"})
    db["BUFFER_PG"]["Ethernet0|4"] = {"profile": "ingress_lossy_profile"}  # (PG 3 keeps its lossless profile)
    moved = port_settings("sonic", "leaf1", json.dumps(db), "Ethernet0", 3, 8)
    assert moved.headroom_bytes is None and moved.trigger_bytes != found.trigger_bytes


def _spine_of(folder: Path, model: str, word: str) -> Path:
    """spine1 as a switch of ``model`` whose queue blocks say ``word`` (`tx-queue` or `uc-tx-queue`)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (FABRIC / "spine1.cfg").read_text().replace("(DCS-7060DX5-64S,", f"({model},", 1)
    (folder / "spine1.cfg").write_text(text.replace("\n   uc-tx-queue ", f"\n   {word} "))
    return folder


@pytest.mark.slow
@pytest.mark.parametrize(("model", "word", "family"), [("DCS-7280CR3-32P4", "tx-queue", "sand"),
                                                       ("DCS-7050CX3-32S", "uc-tx-queue", "trident-tomahawk")])
def test_an_eos_push_and_its_put_back_use_the_queue_keyword_of_the_switch(make_sim, tmp_path, model, word, family):
    """A Sand switch (7280R) has `tx-queue` blocks only, a Trident/Tomahawk one `uc-tx-queue` (render.families): the
    pushed candidate and the put-back write the keyword the running config uses, and the simulated Sand switch, which
    refuses `uc-tx-queue` as EOS refuses a command its platform lacks, takes both (the put-back always wrote
    `uc-tx-queue`)."""
    sim = make_sim(["spine1"], snmp=False, fabric=_spine_of(tmp_path / "fabric", model, word))
    host = load(sim.inventory_path, sim.env).hosts["spine1"]
    cfg = candidate.load("spine1", "arista_eos", sim.running_config("spine1"), POLICY, ["Ethernet1/1"])
    assert cfg.family == family
    other = "uc-tx-queue" if word == "tx-queue" else "\n   tx-queue"
    pusher = EosPusher(host, sim.known_hosts_path, 30.0, "losslessd-tune-test")
    pusher.open()
    try:
        found = candidate.ecn_settings(cfg, POLICY, cfg.text)
        origin = pusher.origin(cfg.text, cfg.queues, cfg.family)
        assert f"\n   {word} 3\n      no random-detect ecn" in origin["snippet"] and other not in origin["snippet"]
        checked = candidate.check(cfg, POLICY, NEW)
        assert f"\n   {word} 3\n" in checked.snippet and other not in checked.snippet
        want = candidate.expected(cfg, POLICY, NEW)
        assert pusher.push(checked.snippet, candidate.ecn_check(cfg, POLICY, want)).changed
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config("spine1")) == want
        pusher.restore(origin, candidate.ecn_check(cfg, POLICY, found))
        assert candidate.ecn_settings(cfg, POLICY, sim.running_config("spine1")) == found
        assert not [line for line in sim.devices["spine1"].config.log if line.startswith(other.strip())]
    finally:
        pusher.close()


@pytest.mark.slow
def test_the_simulated_sand_switch_refuses_the_unicast_queue_keyword(make_sim, tmp_path):
    from netmiko import ConnectHandler

    from tests.peers import ssh_params

    sim = make_sim(["spine1"], snmp=False, fabric=_spine_of(tmp_path / "fabric", "DCS-7280CR3-32P4", "tx-queue"))
    with ConnectHandler(**ssh_params(sim, "spine1")) as conn:
        conn.enable()
        conn.send_command_timing("configure session t1")
        conn.send_command_timing("interface Ethernet1/1")
        assert "% Invalid input" in conn.send_command_timing("uc-tx-queue 3")
        assert "% Invalid input" not in conn.send_command_timing("tx-queue 3")
        conn.send_command_timing("abort")


def test_the_queue_keyword_comes_from_the_config_else_the_model(tmp_path):
    from losslessd.parse.eos import queue_family

    text = (FABRIC / "spine1.cfg").read_text()
    assert queue_family([text]) == "trident-tomahawk"  # (its blocks say uc-tx-queue)
    as_sand = text.replace("\n   uc-tx-queue ", "\n   tx-queue ")
    assert queue_family([as_sand]) == "sand"  # (whatever the header says)
    assert queue_family([text.replace("\n   uc-tx-queue 6", "\n   tx-queue 6")]) is None
    bare = re.sub(r"\n   uc-tx-queue \d+\n(      .*\n)*", "\n", text)
    assert queue_family([bare]) is None
    assert candidate.load("spine1", "arista_eos", bare, POLICY, ["Ethernet1/1"]).family == "trident-tomahawk"
    sand = bare.replace("(DCS-7060DX5-64S,", "(DCS-7280CR3-32P4,", 1)
    assert candidate.load("spine1", "arista_eos", sand, POLICY, ["Ethernet1/1"]).family == "sand"
    assert candidate.load("spine1", "arista_eos", as_sand, POLICY, ["Ethernet1/1"]).family == "sand"  # (the config's)
    with pytest.raises(InputError, match="spine1: the arista_eos ECN commands differ between families"):
        candidate.load("spine1", "arista_eos", bare.replace("(DCS-7060DX5-64S,", "(DCS-0000,", 1), POLICY,
                       ["Ethernet1/1"])
    pusher = EosPusher(SimpleNamespace(name="spine1"), None, 1.0, "t")  # (origin opens no session)
    assert "\n   tx-queue 3\n" in pusher.origin(bare, {"Ethernet1/1": [3]}, "sand")["snippet"]
    assert "\n   uc-tx-queue 3\n" in pusher.origin(bare, {"Ethernet1/1": [3]}, "trident-tomahawk")["snippet"]
