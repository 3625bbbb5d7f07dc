"""snmpsim variation module of losslessd's simulator: counters that move, PFC storms and agent faults.

snmpsim executes this file itself (``--variation-modules-dir``); losslessd.sim.counters imports its
pure functions (``counter``, ``on_seconds``, ``watchdog``) so that the SSH counter commands follow the
same formulas. A record ``OID|70:lossless|b=<base>,r=<rate per s>[,up=<key>][,stop=<key>][,w=1]``
serves ``base + rate * (now - t0)``; ``up`` adds the storm rate for every second a storm matching
``key`` was on, ``stop`` freezes the counter while a storm that stops the queue is on (a congestion
span, whose queue keeps draining, does not; ``stop_if`` narrows ``stop`` to storms of one ECN kind,
congestion included), ``w`` marks a Counter32 that the wrap
mode starts just below 2^32, ``d=1`` on a TimeTicks record serves the sysUpTime its ``b``/``r`` give at the counters'
last restart beneath the agent (ifCounterDiscontinuityTime; 0 when none since the agent started), ``c=<key>/<what>`` adds what a workload credited to it (Traffic.credits). A key is ``<ifIndex>.<priority>``; ``<ifIndex>`` alone matches every
priority of that port.

Why not snmpsim's ``numeric`` module or rewriting the data file: ``numeric`` keeps each record's
settings for the life of the process (a new rate is never read), and a rewritten data file is
only re-read when its whole-second mtime changes. Here the value is a pure function of wall time
and ``<data file>.state.json`` (losslessd.sim.counters.Traffic: t0, storm rate, storm spans, faults;
replaced atomically by the simulator and re-read when its nanosecond mtime changes), so every
counter stays monotonic and continuous across storm changes, and jumps back only on a reset.
"""

import json
import os
import time

# Counter32 and TimeTicks wrap at 2^32, Counter64 at 2^64 (RFC 2578, section 7.1).
_MODULUS = {"65": 2**32, "67": 2**32, "70": 2**64}
GARBAGE = "n/a (counter busy)"  # what a garbage-answering agent serves instead of a number


def init(**context):
    moduleContext["states"] = {}  # noqa: F821 - snmpsim injects moduleContext


def _state(data_file):
    """The traffic state beside ``data_file``, re-read only when it changed."""
    path = data_file.rsplit(".", 1)[0] + ".state.json"
    mtime = os.stat(path).st_mtime_ns
    cached = moduleContext["states"].get(path)  # noqa: F821
    if cached is None or cached[0] != mtime:
        with open(path, encoding="utf-8") as f:
            cached = (mtime, json.load(f))
        moduleContext["states"][path] = cached  # noqa: F821
    return cached[1]


def on_seconds(state, key, now, ecn_healthy=None, stuck=None):
    """Seconds since the last (re)start, up to ``now``, that storms matching ``key`` were on (summed
    over priorities); ``ecn_healthy`` True/False counts only storms of that kind, ``stuck`` True only
    those that stop the queue (a span's optional fourth item, ``drains``, marks congestion: pauses
    arrive and the queue keeps sending)."""
    total = 0.0
    for storm_key, spans in state["storms"].items():
        if storm_key != key and not storm_key.startswith(key + "."):
            continue
        for start, end, healthy, *drains in spans:
            if (ecn_healthy is None or healthy == ecn_healthy) and (stuck is None or stuck != any(drains)):
                total += max(0.0, min(now, end if end is not None else now) - max(start, state["t0"]))
    return total


def counter(spec, state, now, modulus=2**64):
    """A counter's value at ``now`` (see the module docstring for the record's ``spec``)."""
    active = now - state["t0"]
    if "stop" in spec:  # subtract the seconds first: a frozen counter then reads the same every time
        healthy = _healthy(spec.get("stop_if"))
        active -= on_seconds(state, spec["stop"], now, healthy, stuck=True if healthy is None else None)
    base = 0.0 if state["restarted"] else float(spec["b"])  # a restarted device counts from zero
    v = base + float(spec["r"]) * active
    if "up" in spec:
        v += float(spec.get("k", 1)) * state["storm_rate"] * on_seconds(state, spec["up"], now, _healthy(spec.get("up_if")))
    if "c" in spec:
        v += float(state.get("credits", {}).get(spec["c"], 0))
    if "w" in spec and state.get("wrap_at") and not state["restarted"]:
        v = modulus + float(spec["r"]) * (now - state["wrap_at"])  # crosses 2^32 at wrap_at
    return int(v) % modulus


def _healthy(flag):
    return None if flag is None else flag == "ecn"


def watchdog(state, key, now, detection_s, restoration_s):
    """An on-box PFC watchdog on one queue, as SONiC's counts it: a storm is detected once it has
    lasted ``detection_s`` and restored ``restoration_s`` after it ended. Returns (detected,
    restored, stormed now, seconds spent stormed) since the last (re)start."""
    detected = restored = 0
    stormed = False
    stormed_s = 0.0
    for start, end, _, *drains in state["storms"].get(key, []):
        if any(drains):
            continue  # congestion: the queue drains, the watchdog sees no storm
        start = max(start, state["t0"])
        if min(now, end if end is not None else now) - start < detection_s:
            continue
        detected += 1
        cleared = end + restoration_s if end is not None else None
        if cleared is not None and now >= cleared:
            restored += 1
            stormed_s += cleared - start - detection_s
        else:
            stormed = True
            stormed_s += now - start - detection_s
    return detected, restored, stormed, stormed_s


def variate(oid, tag, value, **context):
    if not context["nextFlag"] and not context["exactMatch"] or context["setFlag"]:
        return context["origOid"], tag, context["errorStatus"]
    cached = recordContext.get("spec")  # noqa: F821 - snmpsim injects recordContext
    if cached is None or cached[0] != value:  # (a rewritten data file's record: its new base and rate, not the first)
        cached = recordContext["spec"] = (value, dict(item.split("=", 1) for item in value.split(",")))  # noqa: F821
    spec = cached[1]
    state = _state(context["dataFile"])
    if state["down"]:  # an agent sharing its process with others cannot be SIGSTOPped: stay silent
        from snmpsim.error import NoDataNotification
        raise NoDataNotification()
    if "d" in spec:  # ifCounterDiscontinuityTime: the sysUpTime (this record's b, r) at the counters' last restart
        up = state.get("uptime_from")  # (None: they restarted with the agent, or never: 0, none since it started)
        return oid, tag, 0 if up is None else counter(spec, {**state, "t0": up[0], "restarted": up[1]}, state["t0"],
                                                      _MODULUS[tag])
    if state["slow_s"] and tag == "67":
        # Once per poll: every poll starts by asking sysUpTime. (snmpsim asks a variation module per
        # varbind, and a GETBULK's varbinds one by one, so a per-request delay cannot be told apart.)
        time.sleep(state["slow_s"])
    if state["garbage"] and tag != "67":  # sysUpTime still answers: the counters are what is wrong
        return oid, "4", GARBAGE
    if tag == "67" and state.get("uptime_from"):  # the counters restarted beneath the agent: sysUpTime goes on
        state = {**state, "t0": state["uptime_from"][0], "restarted": state["uptime_from"][1]}
    return oid, tag, counter(spec, state, time.time(), _MODULUS.get(tag, 2**32))


def shutdown(**context):
    moduleContext["states"].clear()  # noqa: F821
