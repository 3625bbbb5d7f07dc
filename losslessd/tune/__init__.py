"""Benchmark-driven tuning of ECN/PFC settings (`losslessd tune`, docs/tune.md).

    benchmark output (nccl-tests, perftest) --> bench.read_benchmark --> per-size results
    counters around the run (SNMP, SSH) ------> counters.Delta ---------/      |
                                                                        score.Score
    policy bounds --> space.Space --> search (coordinate descent, random, grid, optuna) --> candidate
    candidate --> candidate.Plan: rendered per device (losslessd.render), linted before use
    apply.Pusher: each platform's transactional path (napalm eos, SONiC checkpoint/apply-patch/rollback)
    store.Store: every trial in SQLite, so a killed tune resumes without losing a finished trial

fluid.py is the stand-in fabric (a DCQCN + PFC fluid model solved with scipy) that bench/tune_eval.py
and the simulator's benchmark command (losslessd.sim.bench) run; propose.py gives the daemon's
ecn_not_marking events the tuner's proposed settings for their port.
"""
