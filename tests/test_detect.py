"""The detectors fed with recorded counter sequences (tests/fixtures/monitor/sequences), and their
device-down, on-box and threshold behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from losslessd.fabric import load_fabric
from losslessd.monitor import PFC_RX, TX_PACKETS, Key, Rates, Reading, queue_maps_of
from losslessd.monitor.counters import CounterTracker
from losslessd.monitor.detect import Detectors, Thresholds
from tests.peers import swapped_leaf1

SEQUENCES = Path(__file__).parent / "fixtures" / "monitor" / "sequences"
EPOCH = 1_760_000_000.0  # wall clock of the first poll in every sequence
IDENTITY = {"Ethernet0": {p: [p] for p in range(8)}}  # Ethernet0's priority p on queue p (its config's maps)


def _key(text: str) -> Key:
    port, name, *index = text.split()
    return Key(port, name, int(index[0]) if index else None)


def readings(seq: dict) -> list[Reading]:
    counters = {_key(k): v for k, v in seq["counters"].items()}
    bits = {_key(k): 32 for k in seq.get("bits32", [])}
    uptime = seq.get("uptime") or [None] * len(seq["times"])
    return [Reading(seq["device"], t, EPOCH + t, uptime[i], {k: v[i] for k, v in counters.items() if v[i] is not None},
                    bits) for i, t in enumerate(seq["times"])]  # null: the counter was not read in that poll


def replay(seq: dict, thresholds: Thresholds | None = None):
    """Feed the sequence through the counter maths and the detectors: (events as
    [poll, start|end, kind, port, priority], polls whose reading was a reset, the detectors)."""
    tracker = CounterTracker()
    det = Detectors(thresholds or Thresholds.model_validate(seq.get("thresholds", {})), set(seq["lossless"]),
                    set(seq.get("lossy_pause_ok", [])))
    seen, events, resets = set(), [], []
    for i, reading in enumerate(readings(seq)):
        rates = tracker.update(reading)
        if rates is None:
            continue
        if rates.reset:
            resets.append(i)
        for ev in det.feed(rates):
            if ev.id not in seen:
                seen.add(ev.id)
                events.append([i, "start", ev.kind, ev.port, ev.priority])
            if ev.end_unix_s is not None:
                events.append([i, "end", ev.kind, ev.port, ev.priority])
    return events, resets, det


@pytest.mark.parametrize("path", sorted(SEQUENCES.glob("*.yaml")), ids=lambda p: p.stem)
def test_recorded_sequence(path):
    seq = yaml.safe_load(path.read_text())
    events, resets, _ = replay(seq)
    assert events == seq["expect"]
    assert resets == seq.get("expect_resets", [])


def test_storm_event_carries_its_times_and_numbers():
    seq = yaml.safe_load((SEQUENCES / "storm-10s.yaml").read_text())
    tracker, det = CounterTracker(), Detectors(Thresholds(), {3, 4})
    storms = []
    for r in readings(seq):
        if (rates := tracker.update(r)) is not None:
            storms += [e for e in det.feed(rates) if e.kind == "pfc_storm"]
    start, end = storms
    assert start is end  # the same event, ended
    assert (start.start_unix_s, start.end_unix_s) == (EPOCH + 20, EPOCH + 60)  # first stormed interval .. drained
    assert start.severity == "error" and start.basis == "inferred" and start.device == "leaf1"
    assert start.numbers["pfc_rx_per_s"] == 6000 and start.numbers["tx_packets_per_s"] == 0
    assert start.numbers["peak_pfc_rx_per_s"] == 6000 and start.numbers["interval_s"] == 10
    assert "Ethernet8 priority 3" in start.message and "6000 pause frames/s" in start.message
    assert det.open_events() == []


def test_longer_detection_and_restoration_times_delay_the_storm_and_its_end():
    seq = yaml.safe_load((SEQUENCES / "storm-10s.yaml").read_text())
    events, _, _ = replay(seq, Thresholds(storm_detection_s=30, storm_restoration_s=20))
    storm = [e[:2] for e in events if e[2] == "pfc_storm"]
    assert storm == [[5, "start"], [7, "end"]]


def _stormed(t: float, interval_s: float, stuck: bool = True) -> Rates:
    """An interval of Ethernet0 priority 3 ending at ``t``: 500 pause frames/s arrive, its queue sends nothing while
    queue 0 sends (the queue table refreshed), or (not stuck) it sends and no pause arrives."""
    rx, tx = (500.0, 0.0) if stuck else (0.0, 100.0)
    per_s = {Key("Ethernet0", PFC_RX, 3): rx, Key("Ethernet0", TX_PACKETS, 3): tx,
             Key("Ethernet0", TX_PACKETS, 0): 100.0}
    return Rates("leaf1", EPOCH + t, interval_s, {k: round(v * interval_s) for k, v in per_s.items()}, per_s,
                 monotonic_s=t)


def _storm_times(thresholds: Thresholds, interval_s: float, stuck_s: float = 600.0) -> tuple[float, float | None]:
    """(seconds from the storm's start to its pfc_storm opening, seconds from its end to the event ending) for a queue
    stuck from 0 to ``stuck_s`` and polled every ``interval_s``."""
    det, opened, ended, t = Detectors(thresholds, {3}), None, None, 0.0
    while ended is None and t < stuck_s + 600:
        t += interval_s
        for event in det.feed(_stormed(t, interval_s, stuck=t <= stuck_s)):
            if event.kind == "pfc_storm" and event.open:
                assert event.start_unix_s == EPOCH  # it starts at the first stormed interval's start
                opened = t
            elif event.kind == "pfc_storm":
                ended = t - stuck_s
    assert opened is not None
    return opened, ended


@pytest.mark.parametrize(("interval_s", "opens_s"), [(0.5, 20.0), (1.0, 20.0), (3.0, 21.0), (10.0, 20.0), (30.0, 60.0)])
def test_a_storm_is_timed_not_counted_in_polls_whatever_the_interval(interval_s, opens_s):
    """A storm is the queue seen stuck for storm_detection_s (20 s), whatever the poll interval: it opens at the first
    poll 20 s into it (3 s polls: 21 s), not at the second poll (1 s at 0.5 s polls, as when it was counted in polls).
    Polls 30 s apart still need two stormed intervals (storm_min_intervals), 60 s, and the worker says so once."""
    det = Detectors(Thresholds(), {3})
    opened, ended = _storm_times(Thresholds(), interval_s)
    assert opened == opens_s and ended == interval_s  # ends at the first drained interval (storm_restoration_s 0)
    for n in range(1, 3):
        det.feed(_stormed(n * interval_s, interval_s))
    said = [said for _, _, said in det.unknowns()]
    if interval_s < 20:
        assert said == []
    else:
        assert said == ["PFC storms of leaf1 open later than detection.storm_detection_s (20 s): its counters come "
                        "every 30 s, and a storm needs storm_min_intervals (2) stormed intervals, 60 s here, first "
                        "Ethernet0 priority 3; poll it more often, or take storm_min_intervals to 1 where its queue "
                        "counters are live"]
        for n in range(3, 6):
            det.feed(_stormed(n * interval_s, interval_s, stuck=n != 3))
        assert det.unknowns() == []  # once per device


@pytest.mark.parametrize("interval_s", [1.0, 5.0])
def test_a_storm_ends_after_draining_for_its_restoration_time_whatever_the_interval(interval_s):
    assert _storm_times(Thresholds(storm_restoration_s=10), interval_s, stuck_s=60)[1] == 10


def test_the_old_poll_counted_keys_are_refused_saying_what_replaces_them():
    with pytest.raises(ValidationError, match=r"storm_detection_polls is no longer read: a storm is timed now, "
                                              r"whatever the poll interval; write storm_detection_s in seconds instead"
                                              r" \(.* 3 x 10 s SNMP polls = storm_detection_s: 30\)"):
        Thresholds.model_validate({"storm_detection_polls": 3})
    with pytest.raises(ValidationError, match="write storm_restoration_s in seconds"):
        Thresholds.model_validate({"storm_restoration_polls": 1})
    assert "storm_detection_polls" not in Thresholds.model_json_schema()["properties"]


def test_unknown_priorities_are_not_lossy():
    """Without a lossless set (no policy) nothing is known to be lossy: no lossy_pause."""
    seq = yaml.safe_load((SEQUENCES / "lossy.yaml").read_text())
    seq["lossless"] = []
    assert replay(seq)[0] == []


def test_ecn_evidence_from_a_slower_source_is_used_while_fresh():
    """Marks from an SSH poll measured inside the pausing spell pair with pauses from later SNMP polls
    until they are too old."""
    det = Detectors(Thresholds(ecn_polls=1, ecn_evidence_max_age_s=60), {3})
    det.set_queues("leaf1", IDENTITY)
    pauses = {Key("Ethernet0", PFC_RX, 3): 500.0, Key("Ethernet0", TX_PACKETS, 3): 1000.0}
    assert det.feed(Rates("leaf1", 1010.0, 10.0, {}, pauses)) == []  # pausing since 1000, no marks known yet
    det.feed(Rates("leaf1", 1030.0, 30.0, {}, {Key("Ethernet0", "ecn_marked", 3): 0.0}))  # SSH: 1000..1030
    opened = det.feed(Rates("leaf1", 1040.0, 10.0, {}, pauses))
    assert [(e.kind, e.numbers["ecn_and_cnp_per_s"]) for e in opened] == [("ecn_not_marking", 0.0)]
    assert det.feed(Rates("leaf1", 1100.0, 10.0, {}, pauses)) == []  # evidence 70 s old: no judgement
    assert [e.kind for e in det.open_events()] == ["ecn_not_marking"]


@pytest.mark.parametrize(("step_s", "marks_after"), [(-3600.0, True), (3600.0, False)])
def test_a_wall_clock_set_back_or_ahead_between_polls_leaves_the_ecn_detector_seeing(step_s, marks_after):
    """The spell of pausing and the ECN marks are timed by the monotonic clock of the readings (Rates.monotonic_s).
    By the wall clock, a clock set back an hour made every mark measured after it older than the spell (the detector
    held until the pausing stopped), and one set ahead made the marks of the poll before an hour old."""
    det = Detectors(Thresholds(ecn_polls=2, ecn_evidence_max_age_s=60), {3})
    det.set_queues("leaf1", IDENTITY)
    pauses = {Key("Ethernet0", PFC_RX, 3): 500.0, Key("Ethernet0", TX_PACKETS, 3): 1000.0}
    marks = {Key("Ethernet0", "ecn_marked", 3): 0.0}

    def feed(wall: float, mono: float, per_s: dict) -> list:
        return det.feed(Rates("leaf1", wall, 10.0, {}, per_s, monotonic_s=mono))

    assert feed(1010.0, 510.0, pauses) == []  # pausing since 500 (monotonic), no marks known yet
    assert feed(1020.0, 520.0, {**pauses, **marks}) == []  # a first hit
    opened = feed(1030.0 + step_s, 530.0, {**pauses, **(marks if marks_after else {})})  # the clock was set
    assert [(e.kind, e.numbers["ecn_and_cnp_per_s"]) for e in opened] == [("ecn_not_marking", 0.0)]


def _congested(det: Detectors, queue_marks: dict[int, float]) -> list:
    """Four 10 s polls of Ethernet0 paused on priority 3 (500 frames/s) while its queue drains, with these ECN
    marks per queue: the events they give."""
    per_s = {Key("Ethernet0", PFC_RX, 3): 500.0, Key("Ethernet0", TX_PACKETS, 3): 1000.0,
             **{Key("Ethernet0", "ecn_marked", q): v for q, v in queue_marks.items()}}
    return [e for t in (1010.0, 1020.0, 1030.0, 1040.0)
            for e in det.feed(Rates("leaf1", t, 10.0, {k: v * 10 for k, v in per_s.items()}, per_s))]


def test_ecn_marks_are_read_from_the_queue_the_devices_maps_put_the_priority_on():
    """TC 3 on queue 4 (SONiC TC_TO_QUEUE_MAP 3 -> 4, Junos queue-num 4 with pfc-priority 3): queue 4 marks
    with the pauses, queue 3 (another class) marks nothing. Priority 3's ECN is healthy; read by the queue number
    it was "PFC doing ECN's job". And the other way round: queue 3 marking says nothing of priority 3 on queue 4."""
    healthy = {3: 0.0, 4: 300.0}
    det = Detectors(Thresholds(ecn_polls=1), {3})
    det.set_queues("leaf1", {"Ethernet0": {3: [4]}})
    assert _congested(det, healthy) == []
    det = Detectors(Thresholds(ecn_polls=1), {3})
    det.set_queues("leaf1", {"Ethernet0": {3: [4]}})
    [opened] = _congested(det, {3: 300.0, 4: 0.0})
    assert (opened.kind, opened.port, opened.priority, opened.numbers["ecn_and_cnp_per_s"]) == \
        ("ecn_not_marking", "Ethernet0", 3, 0.0)
    # two classes of one priority on two queues: both queues' marks
    for marks, kinds in (({3: 100.0, 4: 300.0}, []), ({3: 0.0, 4: 300.0}, []), ({3: 0.0, 4: 0.0}, ["ecn_not_marking"])):
        det = Detectors(Thresholds(ecn_polls=1), {3})
        det.set_queues("leaf1", {"Ethernet0": {3: [3, 4]}})
        assert [e.kind for e in _congested(det, marks)] == kinds


def test_queue_marks_without_the_devices_maps_are_unknown_and_said_so():
    """No config read yet, or a port whose config names no queue for the priority: the queue marks are unknown
    (the detector holds, however flat queue 3's marks), never queue 3's taken for priority 3; unknowns says
    where and why, once."""
    det = Detectors(Thresholds(ecn_polls=1), {3})
    assert _congested(det, {3: 0.0}) == []
    [(device, port, why)] = det.unknowns()
    assert (device, port) == ("leaf1", "Ethernet0") and "no config of the device read yet" in why
    assert why.startswith("ECN marks of leaf1 Ethernet0 priority 3 are unknown: ")
    assert _congested(det, {3: 0.0}) == [] and det.unknowns() == []  # said once
    det.set_queues("leaf1", {"Ethernet0": {4: [4]}})  # read: priority 3 has no queue in it
    assert _congested(det, {3: 0.0}) == []
    [(_, _, why)] = det.unknowns()
    assert "does not say which egress queue carries the priority" in why
    det.set_queues("leaf1", IDENTITY)
    assert _congested(det, {3: 0.0})[0].kind == "ecn_not_marking"


def _paused_without_drain_counts(det: Detectors, polls: int, port: str = "Ethernet0") -> list:
    """``polls`` 10 s polls of ``port`` paused on priority 3 (6000 frames/s, a storm's) by a source that counts PFC
    frames only (EOS over SNMP: aristaPfcPriorityIndications, no queue counters): the events they give. The polls go
    on from the detectors' last ones (the storm detector times its runs)."""
    per_s = {Key(port, PFC_RX, 3): 6000.0}
    first = _POLLS.get(id(det), 0)
    _POLLS[id(det)] = first + polls
    deltas = {k: v * 10 for k, v in per_s.items()}
    return [e for t in range(first, first + polls)
            for e in det.feed(Rates("leaf2", 1010.0 + 10 * t, 10.0, deltas, per_s))]


_POLLS: dict[int, int] = {}  # detectors -> the polls _paused_without_drain_counts fed them


def test_a_storm_detector_that_cannot_tell_whether_the_queue_drains_says_so_once():
    """Pauses with no drain count, no pause time and no on-box watchdog: no pfc_storm can be inferred, ever. That was
    silent, so an EOS switch polled over SNMP read as one that never stormed; once the pausing has lasted as many
    polls as would open a storm, unknowns says where and why, once."""
    det = Detectors(Thresholds(), {3})
    assert _paused_without_drain_counts(det, 1) == []
    assert det.unknowns() == []  # one poll of pauses: a storm would not have opened either
    assert "pfc_storm" not in [e.kind for e in _paused_without_drain_counts(det, 1)]
    [(device, port, said)] = det.unknowns()
    assert (device, port) == ("leaf2", "")  # the device: a platform without queue counters is blind on every port
    assert said.startswith("PFC storms of leaf2 cannot be inferred where its counters say nothing of whether")
    assert "first Ethernet0 priority 3, paused 2 polls in a row (20 s); pause_rate still reports" in said
    assert "pfc_storm" not in [e.kind for e in _paused_without_drain_counts(det, 3, port="Ethernet4")]
    det.set_queues("leaf2", {"Ethernet0": {3: [3]}})  # (a config read again, hourly: not said again for that)
    assert "pfc_storm" not in [e.kind for e in _paused_without_drain_counts(det, 3, port="Ethernet4")]
    assert det.unknowns() == []  # said once, whichever port pauses next


@pytest.mark.parametrize("seen", [Key("Ethernet0", TX_PACKETS, 3), Key("Ethernet0", "wd_storms", 3)])
def test_a_device_whose_other_source_counts_the_queue_or_its_watchdog_is_not_said_blind(seen):
    """A queue count of the port (another source: SONiC's SNMP queue table) or an on-box watchdog count of the queue
    (onbox_storm reports its storms): the storm detector is not blind there, whatever one source lacks."""
    det = Detectors(Thresholds(), {3})
    det.feed(Rates("leaf2", 1005.0, 5.0, {seen: 0}, {seen: 0.0}))
    _paused_without_drain_counts(det, 4)
    assert det.unknowns() == []


def test_a_source_that_left_no_longer_vouches_for_the_queues_it_counted():
    """The source that counted the port's queues stops polling the device (a reload): the storm detector is blind
    there from then on and says so once (before: what it had counted stayed learned, and the blindness was silent)."""
    det = Detectors(Thresholds(), {3})
    for seen in (Key("Ethernet0", TX_PACKETS, 3), Key("Ethernet0", "wd_storms", 3)):
        det.feed(Rates("leaf2", 1005.0, 5.0, {seen: 0}, {seen: 0.0}))
    det.source_left("leaf2")
    _paused_without_drain_counts(det, 2)
    [(device, _, said)] = det.unknowns()
    assert device == "leaf2" and "first Ethernet0 priority 3, paused 2 polls in a row (20 s)" in said


def test_ecn_marks_from_before_the_pausing_began_are_not_used():
    """A storm that starts after the last (slow) SSH poll: the quiet pre-storm mark rate says nothing
    about whether ECN marks during the storm, so nothing opens until marks measured inside it exist."""
    det = Detectors(Thresholds(ecn_polls=1), {3})
    det.set_queues("leaf1", IDENTITY)
    det.feed(Rates("leaf1", 1000.0, 60.0, {}, {Key("Ethernet0", "ecn_marked", 3): 0.0}))  # 940..1000, no storm
    pauses = {Key("Ethernet0", PFC_RX, 3): 500.0, Key("Ethernet0", TX_PACKETS, 3): 1000.0}
    for t in (1010.0, 1020.0, 1030.0, 1040.0):
        assert det.feed(Rates("leaf1", t, 10.0, {}, pauses)) == []
    det.feed(Rates("leaf1", 1060.0, 60.0, {}, {Key("Ethernet0", "ecn_marked", 3): 4000.0}))  # 1000..1060: marking
    assert det.feed(Rates("leaf1", 1070.0, 10.0, {}, pauses)) == []
    assert det.open_events() == []


def test_a_storm_is_not_read_as_ecn_thresholds_too_high():
    """Pauses from a peer that cannot drain (the queue sends nothing) open pfc_storm, never "PFC doing ECN's
    job" (whose tuning proposal would lower Kmin to fix a stuck NIC); the same pauses with a draining queue
    and no marks do open it."""
    stuck = {Key("Ethernet0", PFC_RX, 3): 6000.0, Key("Ethernet0", TX_PACKETS, 3): 0.0,
             Key("Ethernet0", TX_PACKETS, 0): 900.0, Key("Ethernet0", "ecn_marked", 3): 0.0}

    def kinds(per_s: dict) -> list[str]:
        det = Detectors(Thresholds(ecn_polls=1), {3})
        det.set_queues("leaf1", IDENTITY)
        deltas = {key: value * 10 for key, value in per_s.items()}  # 10 s polls
        return [e.kind for t in (1010.0, 1020.0, 1030.0, 1040.0)
                for e in det.feed(Rates("leaf1", t, 10.0, deltas, per_s))]

    assert sorted(kinds(stuck)) == ["pause_rate", "pfc_storm"]
    assert sorted(kinds({**stuck, Key("Ethernet0", TX_PACKETS, 3): 5000.0})) == ["ecn_not_marking", "pause_rate"]



def test_the_storm_drain_check_reads_the_queue_a_pause_stops():
    """TC 3's traffic on queue 4: 2000 pauses/s on priority 3 while queue 4 sends 100k packets/s and marks 500/s,
    queue 3 sends nothing. Which queue drains is the one the pause stops (QueueMaps.pauses, SONiC
    MAP_PFC_PRIORITY_TO_QUEUE), not the one carrying the traffic: with the pause map moved too (3 -> 4) priority 3
    drains (pause_rate only, ECN judged healthy); with TC_TO_QUEUE_MAP moved alone the pause stops queue 3, which sends
    nothing: a storm, though queue 4 keeps sending. Without the pause maps the drain check keeps SONiC's watchdog
    identity (queue 3 for priority 3)."""
    busy = {Key("Ethernet0", PFC_RX, 3): 2000.0, Key("Ethernet0", TX_PACKETS, 3): 0.0,
            Key("Ethernet0", TX_PACKETS, 4): 100_000.0, Key("Ethernet0", "ecn_marked", 4): 500.0,
            Key("Ethernet0", "ecn_marked", 3): 0.0}
    carries = {"Ethernet0": {3: [4]}}

    def kinds(per_s: dict, maps: dict | None, paused: dict | None) -> list[str]:
        det = Detectors(Thresholds(ecn_polls=2), {3})
        det.set_queues("leaf1", maps, paused)
        return sorted(e.kind for t in (1010.0, 1020.0, 1030.0, 1040.0, 1050.0)
                      for e in det.feed(Rates("leaf1", t, 10.0, {k: v * 10 for k, v in per_s.items()}, per_s)))

    assert kinds(busy, carries, {"Ethernet0": {3: [4]}}) == ["pause_rate"]
    assert kinds(busy, carries, {"Ethernet0": {3: [3]}}) == ["pause_rate", "pfc_storm"]
    stuck = {**busy, Key("Ethernet0", TX_PACKETS, 3): 100_000.0, Key("Ethernet0", TX_PACKETS, 4): 0.0}
    assert kinds(stuck, carries, {"Ethernet0": {3: [4]}}) == ["pause_rate", "pfc_storm"]
    assert kinds(busy, carries, None) == ["pause_rate", "pfc_storm"]  # no pause maps: queue 3 for priority 3
    assert kinds(busy, carries, {"Ethernet0": {3: [3, 4]}}) == ["pause_rate"]  # one of its queues drains


def test_a_config_that_moves_only_a_priority_s_traffic_keeps_its_pause_on_the_old_queue(tmp_path):
    """examples/fabric/leaf1 with TC_TO_QUEUE_MAP 3 -> 4 alone (MAP_PFC_PRIORITY_TO_QUEUE still 3 -> 3): its maps put
    priority 3's marks on queue 4 and its pause on queue 3, so a storm on priority 3 that stops queue 3 is a storm
    while queue 4 keeps sending."""
    (device,) = load_fabric([swapped_leaf1(tmp_path, tables=("TC_TO_QUEUE_MAP",))]).devices.values()
    maps = queue_maps_of(device)
    assert (maps.carries["Ethernet0"][3], maps.pauses["Ethernet0"][3]) == ([4], [3])
    per_s = {Key("Ethernet0", PFC_RX, 3): 2000.0, Key("Ethernet0", TX_PACKETS, 3): 0.0,
             Key("Ethernet0", TX_PACKETS, 4): 100_000.0}
    det = Detectors(Thresholds(), {3})
    det.set_queues("leaf1", *maps)
    kinds = [e.kind for t in (1010.0, 1020.0, 1030.0, 1040.0)
             for e in det.feed(Rates("leaf1", t, 10.0, {k: v * 10 for k, v in per_s.items()}, per_s))]
    assert "pfc_storm" in kinds


def test_device_down_after_failures_and_back():
    det = Detectors(Thresholds(down_after_failures=3), {3})
    assert det.poll_failed("leaf1", 100.0, "timeout") == []
    assert det.poll_failed("leaf1", 110.0, "timeout") == []
    (down,) = det.poll_failed("leaf1", 120.0, "no SNMP v2c answer")
    assert (down.kind, down.device, down.start_unix_s, down.severity) == ("device_down", "leaf1", 100.0, "error")
    assert "no SNMP v2c answer" in down.message and down.numbers["failed_polls"] == 3
    assert det.poll_failed("leaf1", 130.0, "timeout") == []  # already open: nothing new
    assert det.open_events() == [down]
    (up,) = det.poll_ok("leaf1", 140.0)
    assert up is down and up.end_unix_s == 140.0 and det.open_events() == []
    assert det.poll_ok("leaf1", 150.0) == []
    # The count starts again after an answer.
    assert det.poll_failed("leaf1", 160.0, "t") == [] and det.poll_failed("leaf1", 170.0, "t") == []


def test_forget_drops_a_devices_state():
    seq = yaml.safe_load((SEQUENCES / "storm-10s.yaml").read_text())
    tracker, det = CounterTracker(), Detectors(Thresholds(), {3})
    for r in readings(seq)[:5]:
        if (rates := tracker.update(r)) is not None:
            det.feed(rates)
    assert {e.kind for e in det.open_events()} == {"pfc_storm", "pause_rate"}
    det.forget("leaf1")
    assert det.open_events() == []


def test_reset_rates_are_ignored():
    det = Detectors(Thresholds(), {3})
    assert det.feed(Rates("leaf1", 1.0, 10.0, {}, {}, reset=True)) == []


def test_thresholds_reject_unknown_and_out_of_range_settings():
    with pytest.raises(ValidationError):
        Thresholds(storm_detection_ms=200)
    with pytest.raises(ValidationError):
        Thresholds(storm_min_intervals=0)
    with pytest.raises(ValidationError):
        Thresholds(storm_detection_s=-1)
    with pytest.raises(ValidationError):
        Thresholds(storm_paused_share=1.5)
    assert Thresholds.model_validate({"pause_rate_per_s": 50}).pause_rate_per_s == 50



def test_a_nic_pause_storm_is_an_error_counted_by_the_nic_itself():
    """The NIC's own storm prevention counted it: an on-box error on the port (no priority: the counters are per
    port), with the counts of the interval, and the warning counted with the error is not a second event."""
    seq = yaml.safe_load((SEQUENCES / "host-nic-pause-storm.yaml").read_text())
    tracker, det = CounterTracker(), Detectors(Thresholds(), set())  # no policy: still reported
    events = []
    for r in readings(seq)[:5]:
        if (rates := tracker.update(r)) is not None:
            events += det.feed(rates)
    storm, ended = events
    assert storm is ended and storm.kind == "nic_pause_storm" and storm.end_unix_s == EPOCH + 40
    assert (storm.severity, storm.basis, storm.port, storm.priority) == ("error", "on-box watchdog", "ens2f0np0", None)
    assert (storm.start_unix_s, storm.numbers["storm_errors"], storm.numbers["storm_warnings"]) == (EPOCH + 10, 1, 1)
    assert storm.message.startswith("gpu03 ens2f0np0: the NIC reached its PFC storm-prevention timeout 1 time(s)")
    warning = [e for r in readings(seq)[5:7] if (rates := tracker.update(r)) for e in det.feed(rates)]
    opened, closed = warning  # opened at poll 5, ended at poll 6
    assert opened is closed and (opened.kind, opened.severity) == ("nic_pause_storm_warning", "warning")


def test_ecn_marks_floored_after_a_restart_beneath_a_clear_are_no_false_zero():
    """SONiC after `sonic-clear queue wredcounters` prints marks minus the cached count, floored at 0; a syncd restart
    then zeroes the device's count, so the printed marks sit at 0 for a while although the queue marks. Read as
    counts, those zeros opened "PFC doing ECN's job" on a port that marks with every pause; read as the floor they are
    unknown and the detector holds, then judges from marks measured above it: a queue that leaves the floor and then
    stays flat under the pauses does open it, from the first two intervals measured above the floor."""
    pfc, tx, marks = Key("Ethernet0", PFC_RX, 3), Key("Ethernet0", TX_PACKETS, 3), Key("Ethernet0", "ecn_marked", 3)

    def events(printed: list[int]) -> list[tuple[int, str]]:
        tr, det = CounterTracker(), Detectors(Thresholds(ecn_polls=2), {3})
        det.set_queues("leaf1", IDENTITY)
        out = []
        for i, shown in enumerate(printed):
            values = {pfc: 5_000 * i, tx: 10_000 * i, marks: shown}  # 500 pauses/s throughout, the queue drains
            reading = Reading("leaf1", 10.0 * i, EPOCH + 10 * i, None, values, cached={marks: "2026-12-03T19:00:00"})
            if (rates := tr.update(reading)) is not None and not rates.reset:
                out += [(i, e.kind) for e in det.feed(rates)]
        return out

    # printed marks: 10,000 before the restart, then 0 while the count is below the cache, then 600 marks/s again
    assert events([9_000, 10_000, 0, 0, 0, 0, 3_000, 9_000, 15_000]) == []
    # ... or off the floor (0 -> 3,000: unknown, counts only what passed the cache), then flat: no marks while
    # 500 pauses/s go on, judged over 3,000 -> 3,000 (poll 7) and again (poll 8)
    assert events([9_000, 10_000, 0, 0, 0, 0, 3_000, 3_000, 3_000]) == [(8, "ecn_not_marking")]


def test_a_nic_dropping_a_lossless_priority_for_want_of_buffer_is_loss():
    """mlx5 rx_prio<p>_buf_discard moving on a lossless priority is loss at the host (before: not read at all): an
    error event for the interval it moved, ended by the first interval it did not; on a lossy priority, or with the
    count unknown (cleared), nothing."""
    det = Detectors(Thresholds(), {3})
    drops = {Key("ens1f0", "rx_buffer_discards", 3): 5, Key("ens1f0", "rx_buffer_discards", 0): 9}
    [opened] = det.feed(Rates("gpu01", 1010.0, 10.0, drops, {k: v / 10 for k, v in drops.items()}))
    assert (opened.kind, opened.severity, opened.port) == ("nic_lossless_discard", "error", "ens1f0")
    assert opened.priority == 3
    assert opened.numbers["discards"] == 5 and "dropped 5 packet(s) of lossless priority 3" in opened.message
    still = {Key("ens1f0", "rx_buffer_discards", 3): 0}
    cleared = Rates("gpu01", 1020.0, 10.0, {}, {k: 0.0 for k in still}, cleared=frozenset(still))
    assert det.feed(cleared) == []  # unknown: no step, still open
    [ended] = det.feed(Rates("gpu01", 1030.0, 10.0, still, {k: 0.0 for k in still}))
    assert ended is opened and ended.end_unix_s == 1030.0


def test_a_nic_whose_driver_counts_only_the_per_priority_discards_is_judged_by_them():
    """mlx5 rx_prio<p>_discards (Linux 5.6: the per-priority group's rx_discards) is the same loss where the driver
    does not serve rx_prio<p>_buf_discard: it opens the event (before: not read, no event); with both read the larger
    count is the one reported, and a count of one that moved while the other stood still still opens it."""
    det = Detectors(Thresholds(), {3})
    drops = {Key("ens1f0", "rx_discards", 3): 4}
    [opened] = det.feed(Rates("gpu01", 1010.0, 10.0, drops, {k: v / 10 for k, v in drops.items()}))
    assert (opened.kind, opened.priority, opened.numbers["discards"]) == ("nic_lossless_discard", 3, 4)
    flat = {Key("ens1f0", "rx_discards", 3): 0}
    [ended] = det.feed(Rates("gpu01", 1020.0, 10.0, flat, {k: 0.0 for k in flat}))
    assert ended is opened
    both = {Key("ens1f0", "rx_discards", 3): 6, Key("ens1f0", "rx_buffer_discards", 3): 0}
    rates = Rates("gpu01", 1010.0, 10.0, both, {k: v / 10 for k, v in both.items()})
    [again] = Detectors(Thresholds(), {3}).feed(rates)
    assert again.numbers["discards"] == 6
