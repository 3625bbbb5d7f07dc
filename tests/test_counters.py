"""Counter maths: deltas over monotonic time, 32- vs 64-bit wraps told apart from resets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from losslessd.monitor import IN_DISCARDS, PFC_RX, Key, Reading
from losslessd.monitor.counters import CounterTracker

D32 = Key("Ethernet0", IN_DISCARDS)
P64 = Key("Ethernet0", PFC_RX, 3)


def reading(t: float, uptime: int | None, d32: int, p64: int, device: str = "leaf1") -> Reading:
    return Reading(device, t, 1_700_000_000 + t, uptime, {D32: d32, P64: p64}, {D32: 32})


def test_first_reading_gives_none_then_rates_per_second():
    tr = CounterTracker()
    assert tr.update(reading(100.0, 1000, 10, 500)) is None
    r = tr.update(reading(110.0, 2000, 30, 800))
    assert not r.reset and r.interval_s == 10.0 and r.time_unix_s == 1_700_000_110
    assert r.deltas == {D32: 20, P64: 300} and r.per_s == {D32: 2.0, P64: 30.0}


def test_counter32_wrap_is_a_delta():
    tr = CounterTracker()
    tr.update(reading(0.0, 1000, 2**32 - 100, 5))
    r = tr.update(reading(10.0, 2000, 50, 7))
    assert not r.reset and r.deltas[D32] == 150


def test_counter32_going_back_implausibly_far_is_cleared():
    """A wrapped delta above the max rate for the interval cannot be a wrap: that counter was cleared."""
    tr = CounterTracker(max_rate_per_s=1000.0)
    tr.update(reading(0.0, 1000, 3_000_000, 5))
    r = tr.update(reading(10.0, 2000, 10, 7))
    assert not r.reset and r.cleared == {D32} and r.deltas == {P64: 2} and r.per_s == {P64: 0.2}


def test_counter64_going_back_is_cleared_alone_and_the_next_reading_is_measured_from_it():
    """A clear is per counter table: the others' deltas of the interval stay (sysUpTime kept counting)."""
    tr = CounterTracker()
    tr.update(reading(0.0, 1000, 10, 900))
    r = tr.update(reading(10.0, 2000, 12, 3))
    assert not r.reset and r.cleared == {P64} and r.deltas == {D32: 2}
    r = tr.update(reading(20.0, 3000, 14, 23))
    assert not r.reset and not r.cleared and r.deltas == {D32: 2, P64: 20}


def test_a_counter_misread_low_once_counts_nothing_twice():
    """A Counter64 read once at 0 (or at a stale lower value: the agent missed the device's counter for a moment) and
    then at its count again: the dip was cleared, and the next interval was measured from it, its pause frames
    counted again, 10^9 of them in 10 s (a storm that never was). Now that interval has no delta either; a counter
    that stays below where it was was cleared for real and counts on from there (the test above)."""
    tr = CounterTracker()
    tr.update(reading(0.0, 1000, 10, 10**9))
    r = tr.update(reading(10.0, 2000, 12, 0))
    assert r.cleared == {P64} and r.deltas == {D32: 2}
    r = tr.update(reading(20.0, 3000, 14, 10**9 + 50))
    assert not r.reset and r.cleared == {P64} and r.deltas == {D32: 2}
    r = tr.update(reading(30.0, 4000, 16, 10**9 + 80))
    assert not r.cleared and r.deltas == {D32: 2, P64: 30}  # measured again
    tr.update(reading(40.0, 5000, 18, 10**9 + 60))  # a stale answer: 20 below
    r = tr.update(reading(50.0, 6000, 20, 10**9 + 90))
    assert r.cleared == {P64}, r.deltas


def test_every_counter_going_back_is_a_reset():
    tr = CounterTracker(max_rate_per_s=1000.0)  # the Counter32 going back cannot be a wrap
    tr.update(reading(0.0, 1000, 10, 900))
    r = tr.update(reading(10.0, 2000, 2, 3))
    assert r.reset and r.deltas == {} and r.cleared == {D32, P64}


def test_uptime_back_is_a_reset_even_when_counters_look_fine():
    """After a reboot a counter may already be above its old value; sysUpTime still tells."""
    tr = CounterTracker()
    tr.update(reading(0.0, 5_000_000, 10, 100))
    assert tr.update(reading(60.0, 3000, 20, 200)).reset


def test_uptime_that_advanced_less_than_the_time_that_passed_is_a_reset():
    """Down for 10 minutes, back up for 2: uptime is higher than before, but only by 2 minutes."""
    tr = CounterTracker()
    tr.update(reading(0.0, 10_000, 10, 100))
    assert tr.update(reading(600.0, 22_000, 20, 200)).reset


def test_uptime_wrap_after_497_days_is_not_a_reset():
    tr = CounterTracker()
    tr.update(reading(0.0, 2**32 - 300, 10, 100))
    r = tr.update(reading(10.0, 700, 20, 200))
    assert not r.reset and r.deltas[P64] == 100


def test_uptime_slightly_behind_the_monotonic_clock_is_no_reset():
    """A slow answer moves our timestamp, not the agent's: a little lag is allowed."""
    tr = CounterTracker()
    tr.update(reading(0.0, 1000, 10, 100))
    assert not tr.update(reading(10.0, 1000 + 850, 20, 200)).reset


def test_sources_without_uptime_rely_on_counters():
    tr = CounterTracker()
    tr.update(reading(0.0, None, 10, 100))
    assert not tr.update(reading(10.0, None, 20, 200)).reset
    assert tr.update(reading(20.0, None, 30, 50)).cleared == {P64}
    tr.max_rate_per_s = 1000.0  # the Counter32 going back below cannot be a wrap
    assert tr.update(reading(30.0, None, 5, 20)).reset  # every counter went back: a restart


def test_keys_present_in_one_reading_only_are_left_out():
    tr = CounterTracker()
    tr.update(Reading("d", 0.0, 0.0, None, {P64: 1}))
    r = tr.update(Reading("d", 5.0, 5.0, None, {P64: 11, D32: 4}))
    assert r.deltas == {P64: 10}


def test_a_reading_no_later_than_the_last_is_ignored():
    tr = CounterTracker()
    tr.update(reading(10.0, 1000, 10, 100))
    assert tr.update(reading(10.0, 1000, 11, 101)) is None
    assert tr.update(reading(20.0, 2000, 12, 102)).deltas == {D32: 2, P64: 2}  # from the first


def test_devices_are_separate_and_forget_starts_over():
    tr = CounterTracker()
    tr.update(reading(0.0, 1000, 10, 100, "a"))
    assert tr.update(reading(1.0, 1100, 10, 100, "b")) is None
    assert tr.update(reading(10.0, 2000, 11, 101, "a")).deltas[P64] == 1
    tr.forget("a")
    assert tr.update(reading(20.0, 3000, 12, 102, "a")) is None


@settings(max_examples=200, deadline=None)
@given(start32=st.integers(0, 2**32 - 1), start64=st.integers(0, 2**63),
       steps=st.lists(st.tuples(st.floats(0.5, 60), st.integers(0, 10**8), st.integers(0, 10**12)),
                      min_size=1, max_size=8))
def test_any_counting_below_the_max_rate_reads_back_exactly(start32, start64, steps):
    """Counters that only count up (the 32-bit one wrapping as it will) give back exactly what was
    counted, at the rate counted, and never a reset."""
    tr = CounterTracker()
    t, uptime, v32, v64 = 0.0, 10**6, start32, start64
    tr.update(reading(t, uptime, v32, v64))
    for dt, add32, add64 in steps:
        t, uptime = t + dt, (uptime + round(dt * 100)) % 2**32
        v32, v64 = (v32 + add32) % 2**32, v64 + add64
        r = tr.update(reading(t, uptime, v32, v64))
        assert not r.reset
        assert r.deltas == {D32: add32, P64: add64}
        assert abs(r.per_s[P64] * r.interval_s - add64) <= 1e-6 * max(1, add64)


def test_a_counter_only_one_reading_has_is_absent_not_zero():
    """A port the source did not serve this poll (a walk cut short, a value printed N/A) has no delta, and
    neither has the interval after it comes back: both are named in Rates.absent, so history can leave them
    unknown rather than quiet."""
    tr = CounterTracker()
    other = Key("Ethernet4", PFC_RX, 3)
    tr.update(Reading("leaf1", 0.0, 0.0, 1000, {P64: 10, other: 5}))
    r = tr.update(Reading("leaf1", 10.0, 10.0, 2000, {P64: 30}))
    assert r.deltas == {P64: 20} and r.absent == {other} and not r.cleared
    r = tr.update(Reading("leaf1", 20.0, 20.0, 3000, {P64: 50, other: 9_000}))
    assert r.deltas == {P64: 20} and r.absent == {other}
    assert not tr.update(Reading("leaf1", 30.0, 30.0, 4000, {P64: 70, other: 9_010})).absent


# SONiC after `sonic-clear queue wredcounters`: `show queue wredcounters` prints the device's count minus the count the
# clear cached, floored at 0 (sonic-utilities utilities_common/netstat.py ns_diff: max(0, new - old)), under "PORT Last
# cached time was T" (scripts/wredstat). Vectors: a clear cached 1,000 marks on queue 3 and 0 on queue 4.
Q3, Q4 = Key("Ethernet0", "ecn_marked", 3), Key("Ethernet0", "ecn_marked", 4)
CLEARED_AT = "2026-12-03T19:00:00.123456"


def wred(t: float, q3: int, q4: int, cache: str | None = CLEARED_AT) -> Reading:
    values = {Q3: q3, Q4: q4}
    return Reading("leaf1", t, 1_700_000_000 + t, None, values, cached={k: cache for k in values} if cache else {})


def test_a_restart_beneath_a_clears_cache_reads_unknown_until_the_count_passes_it():
    """Device counts (queue 3): 1,500 -> syncd restart -> 300 -> 700 -> 1,200 -> 1,700 -> 2,300, printed as
    500, 0, 0, 200, 700, 1,300. The zeros are the floor, not "no marks"; 0 -> 200 counts only what passed the
    cache; from 200 on the deltas are the device's (500, 600). Queue 4 printed 0 throughout: after the restart
    its 0 is a floor too (its count is below what the clear cached, if anything), so it is unknown while at 0."""
    tr = CounterTracker()
    tr.update(wred(0.0, 500, 0))
    seen = [tr.update(wred(t, q3, 0)) for t, q3 in ((10.0, 0), (20.0, 0), (30.0, 200), (40.0, 700), (50.0, 1300))]
    assert [r.cleared for r in seen[:3]] == [frozenset({Q3, Q4})] * 3  # restart, floor, leaving the floor
    assert [r.deltas for r in seen[:3]] == [{}, {}, {}]
    assert seen[3].deltas == {Q3: 500} and seen[3].cleared == {Q4}  # exact again; queue 4 still at its floor
    assert seen[4].deltas == {Q3: 600}


def test_without_a_cache_a_restart_loses_one_interval_and_zeros_are_counts():
    """No clear (no note): the printed value is the device's count; after a restart it counts from 0, so only the
    interval that went back is unknown, and a queue at 0 marked nothing."""
    tr = CounterTracker()
    tr.update(wred(0.0, 500, 0, cache=None))
    first, second, third = (tr.update(wred(t, q3, 0, cache=None)) for t, q3 in ((10.0, 0), (20.0, 0), (30.0, 40)))
    assert first.cleared == {Q3} and first.deltas == {Q4: 0}
    assert second.deltas == {Q3: 0, Q4: 0} and third.deltas == {Q3: 40, Q4: 0}


def test_a_new_clear_or_its_cache_removed_is_a_new_base_not_a_count():
    """Another clear (a new cache time) prints small numbers again; `wredstat -d` (or a reboot emptying /tmp) removes
    the cache and the printed value jumps up by the cached count: neither interval has a delta."""
    tr = CounterTracker()
    tr.update(wred(0.0, 500, 0))
    again = tr.update(wred(10.0, 3, 0, cache="2026-12-03T20:00:00.000001"))
    assert again.cleared == {Q3, Q4} and again.deltas == {}
    assert tr.update(wred(20.0, 3, 0, cache="2026-12-03T20:00:00.000001")).deltas == {Q3: 0, Q4: 0}  # counts again
    removed = tr.update(wred(30.0, 1_520, 0, cache=None))
    assert removed.cleared == {Q3, Q4} and removed.deltas == {}
    assert tr.update(wred(40.0, 1_600, 0, cache=None)).deltas == {Q3: 80, Q4: 0}


def test_the_daemon_accounts_view_changing_is_a_new_base_either_way():
    """SONiC keeps a clear's cache per login user (sonic-utilities utilities_common/cli.py UserCache:
    /tmp/cache/<app>/<uid>/): an account that never cleared reads the device's raw counts with no note, the account
    that cleared reads them against its cache. The daemon's account changing (a settings reload naming another user,
    one device in two inventories) switches the view: raw 1,500 -> cached 3 drops, cached -> raw jumps up by the
    cached count. Neither is a count (nor a restart beneath a cache); the interval after each counts again."""
    tr = CounterTracker()
    tr.update(wred(0.0, 1_500, 40, cache=None))  # an account that never cleared: the raw counts
    to_cached = tr.update(wred(10.0, 3, 0))
    assert to_cached.cleared == {Q3, Q4} and to_cached.deltas == {}
    assert tr.update(wred(20.0, 13, 0)).deltas == {Q3: 10, Q4: 0}
    to_raw = tr.update(wred(30.0, 1_530, 40, cache=None))
    assert to_raw.cleared == {Q3, Q4} and to_raw.deltas == {}
    assert tr.update(wred(40.0, 1_540, 41, cache=None)).deltas == {Q3: 10, Q4: 1}


def test_an_egress_drop_wrap_is_bounded_by_the_device_not_its_port():
    """Egress drops (ifOutDiscards) of one port are packets every other port of the device received and sent its way
    (incast): three 10 Gb/s ports at line rate into a fourth drop up to 2 x 1.49e7 minimum frames a second there (672
    bits a frame, IEEE 802.3 clause 4.4.2), 2.98e8 in 10 s. A Counter32 wrap of 2.5e8 in 10 s was cleared by the port's
    own line (1.49e8 frames in 10 s); the device's four lines (5.95e8) bound it. Inbound discards keep their port's
    bound; a device one of whose ports has no speed gives no device bound (the wrap is read, as before speeds)."""
    from losslessd.monitor import IN_OCTETS, OUT_DISCARDS

    ports = ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]
    out, ind = Key("Ethernet0", OUT_DISCARDS), Key("Ethernet0", IN_DISCARDS)
    octets = [Key(p, IN_OCTETS) for p in ports]

    def at(t: float, dropped: int, speeds: dict[str, float]) -> Reading:
        values = {out: dropped, ind: dropped, **{k: int(t) * 10**9 for k in octets}}
        return Reading("leaf1", t, 1_700_000_000 + t, 1000 + int(t * 100), values, {out: 32, ind: 32}, speeds=speeds)

    wrapped = 250_000_000
    for speeds in ({p: 10e9 for p in ports}, {p: 10e9 for p in ports[:3]}):
        tr = CounterTracker()
        tr.update(at(10.0, 2**32 - wrapped // 2, speeds))
        r = tr.update(at(20.0, wrapped // 2, speeds))
        assert r.deltas[out] == wrapped and out not in r.cleared, (speeds, r)
        # the port's own receiving line still bounds what it discarded on the way in
        assert ind in r.cleared and ind not in r.deltas, (speeds, r)
    # the same wrap where the device's lines carry less than it (one 10 Gb/s port: 1.49e8 frames in 10 s): cleared
    one = {out: 2**32 - wrapped // 2, ind: 0, octets[0]: 0}
    tr = CounterTracker()
    tr.update(Reading("leaf1", 10.0, 0, 1000, one, {out: 32, ind: 32}, speeds={"Ethernet0": 10e9}))
    r = tr.update(Reading("leaf1", 20.0, 10, 2000, {**one, out: wrapped // 2}, {out: 32, ind: 32},
                          speeds={"Ethernet0": 10e9}))
    assert out in r.cleared and out not in r.deltas, r


def test_labels_after_the_wall_clock_stepped_back_meet_it_again():
    """A host booted with its clock an hour ahead, NTP stepping it back once the daemon runs (chrony's makestep): the
    labels went on from the last one at the monotonic rate, so they never met the wall clock again and every event and
    history row of the daemon's life was dated an hour ahead. They still never go back, and now catch up with it (at
    CATCH_UP_RATE of the monotonic time: an hour's step in two hours); a clock stepped forward is taken at once."""
    from losslessd.monitor.clock import CATCH_UP_RATE, WallClock

    now = {"wall": 1_700_003_600.0, "mono": 100.0}
    clock = WallClock(wall=lambda: now["wall"], mono=lambda: now["mono"])

    def tick(s: float) -> float:
        now["wall"] += s
        now["mono"] += s
        return clock.now()

    labels = [clock.now(), tick(10)]
    now["wall"] -= 3600  # stepped back
    step_s = 3600 / (1 - CATCH_UP_RATE)
    labels += [tick(10) for _ in range(int(step_s // 10) + 2)]
    assert all(b > a for a, b in zip(labels, labels[1:], strict=False)), "a label went back"
    assert labels[-1] == now["wall"], labels[-1] - now["wall"]
    now["wall"] += 600  # stepped forward
    assert clock.now() == now["wall"]


def test_rates_are_dated_by_their_reading_which_the_clock_keeps_in_order():
    """The tracker dated a device's rates no earlier than its last date plus the monotonic interval, the clock's rule
    kept a second time: after a step back its dates stayed ahead of the readings' labels (and of the wall clock) for
    the daemon's life, while the clock's labels caught up. Rates carry their reading's label now."""
    from losslessd.monitor.clock import WallClock

    now = {"wall": 1_700_003_600.0, "mono": 100.0}
    clock = WallClock(wall=lambda: now["wall"], mono=lambda: now["mono"])
    tr = CounterTracker()
    dates = []
    for n in range(40):
        if n == 5:
            now["wall"] -= 3600  # NTP steps the clock back an hour
        now["wall"] += 600
        now["mono"] += 600
        r = tr.update(Reading("leaf1", now["mono"], clock.now(), 1000 + n * 60_000, {P64: n}))
        if r is not None:
            dates.append((r.time_unix_s, tr._last["leaf1"].time_unix_s))
    assert all(date == label for date, label in dates), dates
    assert all(b[0] > a[0] for a, b in zip(dates, dates[1:], strict=False))  # (never back)
    assert dates[-1][0] == now["wall"]
