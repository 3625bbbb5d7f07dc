"""Counter maths: consecutive ``Reading``s of a device -> ``Rates`` per second over monotonic time.

A counter that went back either wrapped or was reset, and the two need opposite handling: a wrap is
a real (large) delta, a reset is no information at all. The rules, in order:

1. sysUpTime (TimeTicks, hundredths of a second, itself 32-bit: it wraps after about 497 days,
   RFC 2578 section 7.1.8) advanced less than the monotonic time between the polls, or went back by
   more than its own wrap explains: the agent restarted, so every counter may have restarted. Reset.
2. A 64-bit counter went back: 2^64 does not wrap in a device's life (a 400 Gb/s port needs ~11
   years of octets), so someone cleared it. Clears are per counter table (SONiC's
   `sonic-clear queue wredcounters` rebases only what `show queue wredcounters` prints, sonic-utilities
   scripts/wredstat), so only that counter's delta is dropped (``Rates.cleared``): dropping the whole
   reading would also drop, say, the on-box watchdog's count of a storm that began in the same
   interval, and its next delta is 0, so that storm would never be reported.
3. A 32-bit counter (Counter32, e.g. IF-MIB ifInDiscards) went back: a wrap when no 64-bit
   counter of its port went back with it and the wrapped delta is plausible for the interval (at most
   ``max_rate_per_s``, at most half of 2^32: WRAP_MAX_SHARE; at most its port's line rate allows where the source
   gives the port's speed, Reading.speeds: BITS_PER_COUNT, egress drops every port's: EGRESS_DROPS; inbound
   discards at most the minimum frames of the octets the port received), else cleared as in 2. A port with no
   Counter64 (a Counter32 from 3e9 to 10 on a 10 Gb/s port is a wrap of 1.29e9 discards in 3 s, where the line
   carries 4.5e7 frames) is told by its speed. A restart of
   the device's counts beneath a running agent (a SONiC syncd restart or `config reload` zeroes
   COUNTERS_DB, which sonic-snmpagent serves, while its snmpd and sysUpTime go on; `sonic-clear counters`
   only caches a base for the show commands, sonic-utilities netstat.py ns_diff, and SNMP never sees it)
   takes a port's counters back together, its Counter64s too: a Counter32 from 3e9 to 10 alone would
   be a wrap of 1.29e9 discards, one from 10^6 to 10 a wrap of 4.29e9. A counter whose
   source says when it last restarted (``Reading.discontinuity``: IF-MIB ifCounterDiscontinuityTime,
   RFC 2863) and says another time now restarted: cleared, whichever way it moved (a Counter32 reset
   from 10^6 to 10 was read as a wrap of 4.29e9 discards; one past its old value as that difference).
   A counter that went back and was cleared, and at the next reading is at or above where it was before it went
   back, never was cleared: the agent misread it once (a stale or zero answer: a COUNTERS_DB entry missing for a
   moment), and measured from the dip its next delta counted again what it had counted before (from a dip to 0,
   its whole life in one interval: a storm of 10^8 pause frames a second that never was). That interval has no
   delta either; a counter that stays below where it was was cleared, and counts on from there.
4. A counter only one of the two readings has (a port the source did not serve this poll, a value
   printed N/A) has no delta either (``Rates.absent``): its interval is unknown, not 0.
5. A counter printed against a clear's cache (``Reading.cached``: SONiC's show commands after
   `sonic-clear queue wredcounters` print the device's count minus the count the clear cached, floored at
   0: sonic-utilities utilities_common/netstat.py ns_diff, max(0, new - old)):
   - whose cache was made, changed (another clear) or removed (`wredstat -d`, a reboot emptying /tmp)
     between the two readings is measured from a new base: no delta this time (cleared). Removing the
     cache makes the printed value jump up by the cached count, which is no count of this interval;
   - that went back with its cache unchanged: the device's own count restarted beneath the cache (a syncd
     restart zeroes COUNTERS_DB), and every counter printed against an unchanged cache now reads 0 until
     the device's count passes the cached one. So all of the device's cached counters are unknown in that
     interval, and each stays unknown while its interval starts from 0 (a 0 is the floor, not a count,
     and the first interval off it counts only what passed the cache); from an interval that starts above
     0 it is exact again. A queue that never counts again stays unknown until the next clear.

On a reset (rule 1, or every counter the two readings share went back: a restart of a source that
gives no uptime) the whole reading is dropped (``Rates(reset=True)`` with no deltas, so the caller
can log it). A reading always becomes the new baseline: the next one gives rates again. A device's
first reading, and a reading no later than the last one, give None.

Rates are measured over the monotonic clock and dated by their reading's label (losslessd.monitor.clock: the wall
clock, never going back): a wall clock stepped back (NTP) dated them in the past, into history buckets that already
held that time's rows, and an event opened before the step ended before it started.

Keep one tracker per source (SNMP, SSH counter commands): a reading is compared with the previous
reading of the same device *in this tracker*, and two sources poll different counters at different
times.
"""

from __future__ import annotations

from . import (
    DROPPED_PACKETS,
    ECN_MARKED,
    IN_DISCARDS,
    IN_OCTETS,
    IN_PACKETS,
    LINK_PAUSE_RX,
    LINK_PAUSE_TX,
    OUT_DISCARDS,
    OUT_OCTETS,
    OUT_PACKETS,
    PFC_RX,
    PFC_TX,
    TX_BYTES,
    TX_PACKETS,
    Key,
    Rates,
    Reading,
)

UPTIME_MODULUS = 2**32  # TimeTicks is 32-bit (RFC 2578 section 7.1.8)
COUNTER32_MODULUS = 2**32  # Counter32 (RFC 2578 section 7.1.6)
# The most a counter can count per second: frames of a 1.6 Tb/s port (IEEE 802.3dj, the fastest rate render
# writes) at the minimum size, 64 B plus 8 B preamble and 12 B inter-frame gap (IEEE 802.3 clause 4.4.2):
# 1.6e12 / (84 * 8) ~ 2.38e9 /s.
MAX_FRAMES_PER_S = 2.4e9
# The line-rate bits one count of a counter takes, where a port's speed bounds it (Reading.speeds): a frame at least
# 672 (the minimum frame above; a PFC or PAUSE frame is one such MAC control frame, IEEE 802.3 Annex 31B/31D, which
# also takes longer than its pause quantum of 512 bit times), an octet 8.
_FRAME_BITS = (64 + 8 + 12) * 8
BITS_PER_COUNT = {**dict.fromkeys((PFC_RX, PFC_TX, TX_PACKETS, DROPPED_PACKETS, ECN_MARKED, IN_PACKETS, OUT_PACKETS,
                                   IN_DISCARDS, OUT_DISCARDS, LINK_PAUSE_RX, LINK_PAUSE_TX), _FRAME_BITS),
                  **dict.fromkeys((IN_OCTETS, OUT_OCTETS, TX_BYTES), 8)}
# Egress drops (ifOutDiscards, a queue's drops) are packets every other port of the device received and sent towards one
# egress port (incast): its own line does not bound them, the device's lines together do (_device_speed).
EGRESS_DROPS = frozenset((OUT_DISCARDS, DROPPED_PACKETS))
# A discarded inbound packet was received: IF-MIB counts its octets in ifInOctets (RFC 2863: ifInOctets is every
# octet received, ifInDiscards packets received without error and then discarded), at least a minimum frame's 64.
MIN_FRAME_OCTETS = 64
# A Counter32 that went back is read as a wrap only if the wrap counted at most half its range in the interval: a
# counter that may count more than that between two polls is too fast for 32 bits (RFC 2863 section 3.1.6 asks for
# 64-bit counters of a port fast enough to wrap its Counter32s within an hour), and a wrap of nearly 2^32 is how a
# counter reset, or stepped back a little by a buggy agent, looks.
WRAP_MAX_SHARE = 0.5
# How far sysUpTime may lag the monotonic clock before it counts as a restart: the two are read at
# slightly different moments, and a slow answer moves our stamp but not the agent's.
UPTIME_SLACK_S = 2.0
UPTIME_SLACK_SHARE = 0.25


class CounterTracker:
    """Turns each device's consecutive readings into rates; see the module docstring for the rules."""

    def __init__(self, max_rate_per_s: float = MAX_FRAMES_PER_S):
        self.max_rate_per_s = max_rate_per_s
        self._last: dict[str, Reading] = {}
        # device -> cached counters whose device count restarted beneath their cache (rule 5): unknown while at 0
        self._floored: dict[str, set[Key]] = {}
        # device -> counters cleared at its last reading because they went back -> their value before (rule 3's dip)
        self._dipped: dict[str, dict[Key, int]] = {}

    def update(self, reading: Reading) -> Rates | None:
        """Rates since the device's previous reading; None for its first reading (or one no later than
        the previous); ``Rates(reset=True)`` with nothing in it when a reset is seen."""
        prev = self._last.get(reading.device)
        if prev is not None and reading.monotonic_s <= prev.monotonic_s:
            return None
        self._last[reading.device] = reading
        if prev is None:
            return None
        interval = reading.monotonic_s - prev.monotonic_s
        if _restarted(prev, reading, interval):
            self._dipped.pop(reading.device, None)
            return Rates(reading.device, reading.time_unix_s, interval, {}, {}, reset=True)
        deltas, cleared = self._deltas(prev, reading, interval)
        if cleared and not deltas:
            return Rates(reading.device, reading.time_unix_s, interval, {}, {}, reset=True, cleared=cleared)
        return Rates(reading.device, reading.time_unix_s, interval, deltas,
                     {k: d / interval for k, d in deltas.items()}, cleared=cleared,
                     absent=frozenset(prev.values.keys() ^ reading.values.keys()), monotonic_s=reading.monotonic_s)

    def floored(self, device: str) -> frozenset[Key]:
        """The device's counters held unknown by rule 5 now: printed against a clear's cache beneath which the device's
        count restarted, and still at the floor (0). One that never counts again stays here until the next clear."""
        return frozenset(self._floored.get(device, ()))

    def forget(self, device: str) -> None:
        self._last.pop(device, None)
        self._floored.pop(device, None)
        self._dipped.pop(device, None)

    def _deltas(self, prev: Reading, cur: Reading, interval: float) -> tuple[dict[Key, int], frozenset[Key]]:
        """Per-key deltas of the keys both readings have, and the keys that were cleared (no delta)."""
        out, cleared = {}, []
        back: dict[str, list[Key]] = {}  # port -> its counters that went back (rules 2 and 3)
        cached = bool(prev.cached or cur.cached)  # (rule 5's checks only where a source printed against a cache)
        floored = self._floored.get(cur.device, set())
        dipped, dips = self._dipped.pop(cur.device, {}), {}
        restarted = cached and any(prev.cached.get(k) == base and cur.values[k] < prev.values[k]
                                   for k, base in cur.cached.items() if k in cur.values and k in prev.values)
        if restarted:
            floored = {k for k, base in cur.cached.items() if prev.cached.get(k) == base}
        for key, value in cur.values.items():
            before = prev.values.get(key)
            if before is None:
                continue
            restarts = prev.discontinuity.get(key), cur.discontinuity.get(key)
            if None not in restarts and restarts[0] != restarts[1]:
                cleared.append(key)  # the source says the counter restarted in between (rule 3)
                continue
            if cached:
                if prev.cached.get(key) != cur.cached.get(key):  # a new base: a clear, or its cache removed
                    cleared.append(key)
                    floored.discard(key)
                    continue
                if key in floored:
                    if restarted or before == 0:
                        cleared.append(key)
                        continue
                    floored.discard(key)  # the interval starts above the floor: exact again
            if value < before:
                back.setdefault(key.port, []).append(key)
                continue
            if key in dipped and value >= dipped[key]:  # (rule 3: a misread dip, not a clear)
                cleared.append(key)
                continue
            out[key] = value - before
        for keys in back.values():
            reset = any(cur.bits.get(k, 64) != 32 for k in keys)  # a counter of the port that cannot wrap went back
            for key in keys:
                delta = cur.values[key] - prev.values[key] + COUNTER32_MODULUS
                if not reset and delta <= self._most(prev, cur, key, interval, out):
                    out[key] = delta
                else:
                    cleared.append(key)
                    dips[key] = prev.values[key]
        if dips:
            self._dipped[cur.device] = dips
        if floored:
            self._floored[cur.device] = floored
        else:
            self._floored.pop(cur.device, None)
        return out, frozenset(cleared)

    def _most(self, prev: Reading, cur: Reading, key: Key, interval: float, deltas: dict[Key, int]) -> float:
        """The most ``key`` can have counted in ``interval`` (rule 3): half a Counter32's range, the fastest port's
        frames, its own port's line rate where the source gives its speed (the higher of the two readings', a port
        renegotiated faster in between; for egress drops every port's together, EGRESS_DROPS), and for inbound
        discards the minimum frames of the octets its port received (a Counter64 that went on)."""
        most = min(WRAP_MAX_SHARE * COUNTER32_MODULUS, self.max_rate_per_s * interval)
        speed = (max(_device_speed(prev), _device_speed(cur)) if key.name in EGRESS_DROPS else
                 max(prev.speeds.get(key.port, 0.0), cur.speeds.get(key.port, 0.0)))
        if speed > 0 and (bits := BITS_PER_COUNT.get(key.name)):
            most = min(most, speed * interval / bits)
        received = deltas.get(Key(key.port, IN_OCTETS))
        if key.name == IN_DISCARDS and received is not None and cur.bits.get(Key(key.port, IN_OCTETS), 64) == 64:
            most = min(most, received / MIN_FRAME_OCTETS)
        return most


def _device_speed(reading: Reading) -> float:
    """The bits per second all the reading's ports can receive together; 0 (no bound) where a port's speed is not
    given or a port was left unread (its line adds to what the others may be sent)."""
    if reading.unread or not reading.speeds or any(k.port not in reading.speeds for k in reading.values):
        return 0.0
    return sum(reading.speeds.values())


def _restarted(prev: Reading, cur: Reading, interval: float) -> bool:
    """sysUpTime says the agent restarted between the two readings."""
    if prev.uptime_ticks is None or cur.uptime_ticks is None:
        return False
    elapsed = (cur.uptime_ticks - prev.uptime_ticks) % UPTIME_MODULUS / 100
    slack = max(UPTIME_SLACK_S, UPTIME_SLACK_SHARE * interval)
    if elapsed < interval - slack:
        return True  # went back (or forward by less than the time that passed)
    # Went back by more than a wrap explains: the modular difference is far beyond the interval.
    return cur.uptime_ticks < prev.uptime_ticks and elapsed > interval + slack
