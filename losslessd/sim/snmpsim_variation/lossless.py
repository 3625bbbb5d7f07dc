"""snmpsim variation module of losslessd's simulator: counters that move, and PFC storms.

snmpsim executes this file itself (``--variation-modules-dir``); it is never imported. A record
``OID|70:lossless|b=<base>,r=<rate per s>[,up=<key>][,stop=<key>]`` serves
``base + rate * (now - t0)``; ``up`` adds the storm rate for every second a storm matching
``key`` was on, ``stop`` freezes the counter while it is on. A key is ``<ifIndex>.<priority>``;
``<ifIndex>`` alone matches every priority of that port.

Why not snmpsim's ``numeric`` module or rewriting the data file: ``numeric`` keeps each record's
settings for the life of the process (a new rate is never read), and a rewritten data file is
only re-read when its whole-second mtime changes. Here the value is a pure function of wall time
and ``<data file>.state.json`` (t0, storm rate, storm intervals; replaced atomically by
losslessd.sim.snmp and re-read when its nanosecond mtime changes), so every counter stays
monotonic and continuous across storm changes.
"""

import json
import os
import time

# Counter32 and TimeTicks wrap at 2^32, Counter64 at 2^64 (RFC 2578, section 7.1).
_MODULUS = {"65": 2**32, "67": 2**32, "70": 2**64}


def init(**context):
    moduleContext["states"] = {}  # noqa: F821 - snmpsim injects moduleContext


def _state(data_file):
    """The storm state beside ``data_file``, re-read only when it changed."""
    path = data_file.rsplit(".", 1)[0] + ".state.json"
    mtime = os.stat(path).st_mtime_ns
    cached = moduleContext["states"].get(path)  # noqa: F821
    if cached is None or cached[0] != mtime:
        with open(path) as f:
            cached = (mtime, json.load(f))
        moduleContext["states"][path] = cached  # noqa: F821
    return cached[1]


def _on_seconds(state, key, now):
    """Seconds, up to ``now``, that storms matching ``key`` were on (summed over priorities)."""
    total = 0.0
    for storm_key, spans in state["storms"].items():
        if storm_key != key and not storm_key.startswith(key + "."):
            continue
        for start, end in spans:
            total += max(0.0, min(now, end if end is not None else now) - start)
    return total


def variate(oid, tag, value, **context):
    if not context["nextFlag"] and not context["exactMatch"] or context["setFlag"]:
        return context["origOid"], tag, context["errorStatus"]
    spec = recordContext.get("spec")  # noqa: F821 - snmpsim injects recordContext
    if spec is None:
        spec = dict(item.split("=", 1) for item in value.split(","))
        recordContext["spec"] = spec  # noqa: F821
    state = _state(context["dataFile"])
    now = time.time()
    active = now - state["t0"]
    if "stop" in spec:  # subtract the seconds first: a frozen counter then reads the same every time
        active -= _on_seconds(state, spec["stop"], now)
    v = float(spec["b"]) + float(spec["r"]) * active
    if "up" in spec:
        v += state["storm_rate"] * _on_seconds(state, spec["up"], now)
    return oid, tag, int(v) % _MODULUS.get(tag, 2**32)


def shutdown(**context):
    moduleContext["states"].clear()  # noqa: F821
