"""Issue 11 item 6: no false PFC storms from how agents serve counters, and real storms still flagged.

An hour of 10 s polls of a switch whose agent refreshes its queue table every 10 s or every 60 s (PFC
counters live), serves one stale table, wraps 32-bit queue counters, reboots, misses polls, and is
polled with jitter (tests/counterfaults.py), through the real counter maths and detectors. Ordinary
congestion pauses the lossless queue a third of the time. Before this change the detector opened a
storm on any pause plus a zero queue delta in one poll: 155 false storms an hour at a 60 s refresh."""

from __future__ import annotations

import pytest

from losslessd.monitor.detect import RUN_SLACK, Thresholds
from tests.counterfaults import EPOCH, Agent, run

FAULTS = {
    "live": {},
    "stale-once": {"stale_polls": {40}},
    "stale-often": {"stale_polls": set(range(5, 360, 7))},
    "wrap32": {"wrap32": True},
    "reboot": {"reboot_at_s": 1800.0},
    "missed-polls": {"missed_polls": {50, 51, 52, 200}},
    "no-jitter": {"jitter": 0.0},
    "big-jitter": {"jitter": 0.5},
}
REFRESH = {"live": None, "refresh-10s": 10.0, "refresh-60s": 60.0}


@pytest.mark.parametrize("refresh", REFRESH)
@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("seed", [1, 2])
def test_no_false_storm_in_an_hour(refresh, fault, seed):
    agent = Agent(seed=seed, queue_refresh_s=REFRESH[refresh], **FAULTS[fault])
    result = run(agent)
    assert result.storms == [], [(e.start_unix_s, e.numbers) for e in result.storms]


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_real_storm_is_flagged_once_timed_long_enough(fault, seed):
    """Live queue table: a storm is timed (Thresholds.storm_detection_s, at least storm_min_intervals stormed
    intervals; docs/detection.md "pfc_storm"): it opens at the first informative poll (a stale or missed poll carries
    no information) by which the queue has been seen stormed for the detection time, less RUN_SLACK of an interval,
    from the first poll after the storm began (the start of the first interval wholly inside it), and never before
    the storm has lasted that long less one interval (the interval the storm began in may count); it starts at the
    first stormed interval and ends at the first poll after the storm."""
    start, end = 1000.0, 1300.0
    agent = Agent(seed=seed, storm=(start, end), **{k: v for k, v in FAULTS[fault].items() if k != "reboot_at_s"})
    result = run(agent)
    [storm] = result.storms
    t = Thresholds()
    longest = agent.poll_s * (1 + agent.jitter)
    need_s = t.storm_detection_s - RUN_SLACK * longest
    informative = [p for i, p in enumerate(result.polls) if p > start and i not in agent.missed_polls
                   and i not in agent.stale_polls and i - 1 not in agent.missed_polls]
    first = informative[0]
    by = next(p for k, p in enumerate(informative) if k >= t.storm_min_intervals and p - first >= need_s)
    assert result.opened_at[0] <= by, (result.opened_at, informative[:5])
    assert result.opened_at[0] >= start - longest + need_s, (result.opened_at, start)
    assert storm.start_unix_s - EPOCH >= start - longest
    after = next(p for p in result.polls if p > end)
    assert storm.end_unix_s is not None and storm.end_unix_s - EPOCH <= after + 2 * longest


@pytest.mark.parametrize("refresh", [10.0, 60.0])
def test_a_real_storm_behind_a_slow_queue_table_is_flagged_at_its_refreshes(refresh):
    """A table refreshed every 60 s gives one informative poll a minute: the storm opens at the second
    refresh whose interval lies wholly inside it (at most three refreshes after it began), never
    before: stale polls carry no information either way."""
    start, end = 1000.0, 1400.0
    agent = Agent(seed=7, queue_refresh_s=refresh, storm=(start, end))
    result = run(agent)
    [storm] = result.storms
    assert start + refresh <= result.opened_at[0] <= start + 3 * refresh + agent.poll_s * (1 + agent.jitter)
    assert storm.end_unix_s is not None


def test_one_poll_rule_would_be_fooled_and_the_freshness_check_is_what_stops_it():
    """The same hour at a 60 s refresh with one interval timing a storm: freshness alone still keeps it at 0
    (the persistence rule is a second guard, not the only one)."""
    agent = Agent(seed=4, queue_refresh_s=60.0)
    assert run(agent, Thresholds(storm_detection_s=0, storm_min_intervals=1)).storms == []
