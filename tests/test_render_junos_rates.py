"""A Junos snippet that binds a new scheduler-map restates the device's rates: each of its schedulers takes the
`transmit-rate`, `shaping-rate`, `excess-rate`/`excess-priority` and `buffer-size` lines of the scheduler the port's
old map gave that forwarding class (model Scheduler.rates, render.PortFacts.rates). Before session 36 an ECN-only fix
wrote schedulers with only `priority` and ECN, so a queue guaranteed 60 % ran on whatever the others left."""

from __future__ import annotations

from pathlib import Path

from losslessd import api, fix
from losslessd.fix import apply
from losslessd.parse import junos
from losslessd.parse.base import Input
from tests.conftest import FIXTURES

LEAF = FIXTURES / "raw" / "juniper_junos" / "roce-leaf.cfg"
MODEL = "qfx5120-48y-8c"  # the QFX5000 family: ECN as the validated design's fill levels, no temporal buffer


def _without_ecn(extra: str = "") -> str:
    """The RoCE leaf (roce-sched: `transmit-rate percent 60`, `buffer-size percent 50`; be-sched: `transmit-rate
    percent 40`) with its lossless scheduler's ECN lines taken out (ECN001) and its uplink (no speed) left out."""
    keep = [line for line in LEAF.read_text().splitlines()
            if "et-0/0/48" not in line and "roce-sched explicit-congestion" not in line
            and "roce-sched drop-profile-map" not in line]
    return "\n".join(keep) + "\n" + extra


def _fixed(tmp_path: Path, text: str) -> tuple[str, str]:
    """The ECN fix of ``text`` and the config with it applied."""
    path = tmp_path / "leaf.cfg"
    path.write_text(text)
    result = fix.plan(api.lint([path], "roce-dscp26", fmt="juniper_junos"), unsafe=True, model=MODEL)
    (dev,) = result.devices
    assert dev.message is None and dev.verified and not dev.introduced, (dev.message, dev.introduced)
    snippet = "".join(p.snippet for p in dev.parts)
    return snippet, apply.SHAPES["juniper_junos"].apply(text, snippet)


def _rates(text: str) -> dict[str, dict[int, list[str]]]:
    """Each port's queues' scheduler statements, less `priority low`, the level a scheduler has when it writes none
    (Junos CoS reference, "priority (Schedulers)") and the one the snippet writes then."""
    device = junos.parse([Input("leaf.cfg", text)], "leaf")
    return {p.name: {q: [r for r in queue.scheduler.rates if r != "priority low"]
                     for q, queue in sorted(p.queues.items()) if queue.scheduler}
            for p in device.ports.values() if p.name.startswith("et-")}


def test_ecn_fix_keeps_the_schedulers_transmit_rate_and_buffer_share(tmp_path):
    text = _without_ecn()
    before = _rates(text)
    assert before["et-0/0/0"] == {0: ["transmit-rate percent 40"], 3: ["transmit-rate percent 60",
                                                                      "buffer-size percent 50"], 6: []}
    snippet, applied = _fixed(tmp_path, text)
    assert " transmit-rate percent 60" in snippet and " transmit-rate percent 40" in snippet
    assert _rates(applied) == before
    lint = api.lint([_write(tmp_path / "after", applied)], "roce-dscp26", fmt="juniper_junos")
    assert not [f for f in lint.findings if f.code == "ECN001"]


def test_ports_with_other_rates_get_their_own_scheduler_map(tmp_path):
    """et-0/0/1 on a map whose lossless scheduler guarantees 30 %: one map shared by both ports would give one of
    them the other's rate, so each map is named by its rates too (PortProfile.rates_tag)."""
    other = ("set class-of-service schedulers roce-30 transmit-rate percent 30\n"
             "set class-of-service schedulers roce-30 shaping-rate 40g\n"
             "set class-of-service scheduler-maps map-30 forwarding-class roce scheduler roce-30\n"
             "set class-of-service scheduler-maps map-30 forwarding-class cnp scheduler cnp-sched\n"
             "set class-of-service scheduler-maps map-30 forwarding-class best-effort scheduler be-sched\n"
             "set class-of-service interfaces et-0/0/1 scheduler-map map-30\n")
    text = _without_ecn(other)
    before = _rates(text)
    assert before["et-0/0/1"][3] == ["transmit-rate percent 30", "shaping-rate 40g"]
    snippet, applied = _fixed(tmp_path, text)
    bound = {w[3]: w[5] for w in map(str.split, snippet.splitlines()) if w[2:5:2] == ["interfaces", "scheduler-map"]}
    assert bound.keys() == {"et-0/0/0", "et-0/0/1"} and len(set(bound.values())) == 2, snippet
    assert _rates(applied) == before


def test_the_priority_level_is_kept_and_strict_stays_the_policys(tmp_path):
    """A guaranteed-rate level (`priority medium-high`) is the device's to keep: the snippet decides only strict or
    not, so roce-sched keeps medium-high (it wrote `priority low`, moving the queue down the guaranteed-rate region),
    and the CNP's queue, strict for the policy, gets strict-high whatever level its old scheduler had."""
    text = _without_ecn("set class-of-service schedulers roce-sched priority medium-high\n"
                        "set class-of-service schedulers cnp-sched priority high\n")
    assert _rates(text)["et-0/0/0"][3][-1] == "priority medium-high"
    snippet, applied = _fixed(tmp_path, text)
    assert "schedulers roce-55-90-" in snippet and "-roce priority medium-high" in snippet, snippet
    assert "-roce priority low" not in snippet and "-cnp priority strict-high" in snippet
    device = junos.parse([Input("leaf.cfg", applied)], "leaf")
    assert device.ports["et-0/0/0"].queues[3].scheduler.name.endswith("(priority medium-high)")


def test_a_rate_of_no_junos_form_is_not_read(tmp_path):
    """A rate word no scheduler statement takes (here a shell substitution) makes the scheduler unreadable (SYS002),
    never a line the snippet would repeat."""
    text = _without_ecn("set class-of-service schedulers be-sched transmit-rate $(reboot)\n")
    device = junos.parse([Input("leaf.cfg", text)], "leaf")
    assert any(i.code == "SYS002" and "transmit-rate" in i.message for i in device.issues)
    assert not any("$(" in r for p in device.ports.values() for q in p.queues.values() if q.scheduler
                   for r in q.scheduler.rates)


def _write(folder: Path, text: str) -> Path:
    folder.mkdir()
    (folder / "leaf.cfg").write_text(text)
    return folder / "leaf.cfg"


def test_a_transmit_rate_modifier_on_its_own_line_keeps_the_rate():
    """Set form gives `transmit-rate percent 40 exact` as two lines where the modifier is set apart; the second, a
    modifier alone, keeps the queue's 40 % weight since session 36 (it read as a rate of no percent: weight unknown)."""
    text = _without_ecn("set class-of-service schedulers be-sched transmit-rate exact\n")
    queue = junos.parse([Input("leaf.cfg", text)], "leaf").ports["et-0/0/0"].queues[0]
    assert queue.scheduler.weight == 40 and queue.scheduler.rates == ["transmit-rate percent 40", "transmit-rate exact"]
