"""What the daemon proposes when its ECN-health detector sees PFC doing ECN's job on a port (ecn_not_marking):
the tuner's next setting for that port, one step toward earlier marking inside the policy's bounds, rendered
for the device's platform and linted like any tune candidate. It is a proposal carried by the event (the log
line, the webhook), never applied: `losslessd tune` measures it, `--apply` pushes it.

The step: Kmin one level lower on the tuner's grid (losslessd.tune.space); where Kmin is at the policy's floor,
Pmax one level higher. ECN marks before the ingress buffer reaches XOFF only when the queue crosses Kmin first
(docs/tune.md). The device's config is the one the daemon last read (at its start, a refresh or a drift run), and so
is its hardware model where the platform's ECN commands differ by model (Junos, NX-OS: the `show version` that read
captured, as `tune` reads it).
"""

from __future__ import annotations

import threading

from .. import capture
from ..errors import InputError
from ..limits import read_text
from ..monitor import Event
from ..platforms import PLATFORMS
from ..policy import Policy
from ..render import DEFAULT_MTU_BYTES  # (a port whose config gives no MTU: SONiC's default)
from . import candidate as cand_mod
from .space import Candidate, from_policy

# device -> (platform, running config, `show version` output or None), as the daemon's config reads hand it over.
Found = tuple[str, str, str | None]


class Proposer:
    """Proposals from the devices' latest configs (fed by the daemon's config reads and drift runs: ``update``).
    Thread-safe: updates may come from a thread, the detectors run on the event loop."""

    def __init__(self, policy: Policy):
        self.policy = policy
        self._configs: dict[str, Found] = {}  # device -> (platform, running config, `show version` output)
        self._lock = threading.Lock()

    def update(self, configs: dict[str, Found]) -> None:
        with self._lock:
            self._configs.update(configs)

    def forget(self, device: str) -> None:
        with self._lock:
            self._configs.pop(device, None)

    def __call__(self, event: Event) -> dict:
        """The proposal for ``event``'s port, or why there is none (``unavailable``)."""
        with self._lock:
            found = self._configs.get(event.device)
        if event.port is None:
            return {"unavailable": "the event names no port"}
        if found is None:
            return {"unavailable": f"no config of {event.device} read yet (the daemon reads it at its start and "
                                   "retries a failed read)"}
        platform, text, version = found
        try:
            return propose(platform, event.device, text, event.port, self.policy, version=version)
        except InputError as exc:
            return {"unavailable": str(exc)}


def propose(platform: str, device: str, text: str, port: str, policy: Policy, *, version: str | None = None) -> dict:
    """The proposal for ``port``; ``version``: the device's `show version` output, which names the model where the
    config does not (candidate.load)."""
    # The daemon has no --model: the model comes from the `show version` its config pulls capture.
    remedy = (f"let {device} answer `show version` to the daemon's user (its config pulls capture it beside the "
              "running config)")
    cfg = cand_mod.load(device, platform, text, policy, [port], version=version, remedy=remedy)
    facts = cfg.ports[0]
    space = from_policy(policy, {platform: [facts.speed_gbps]}, facts.mtu_bytes or DEFAULT_MTU_BYTES)
    now = cand_mod.as_found(cfg, policy)
    origin = space.index_of(now) if now is not None else space.centre()
    for dim, step in ((0, -1), (2, 1)):  # Kmin down a level; at the floor, Pmax up a level
        moved = space.neighbour(origin, dim, step)
        if moved is None:
            continue
        cand = space.candidate(moved)
        checked = cand_mod.check(cfg, policy, cand)
        if checked.refused or not checked.snippet:
            continue
        want = cand_mod.expected(cfg, policy, cand)[port]
        return {"platform": platform, "port": port, "kmin_bytes": want[0], "kmax_bytes": want[1],
                "pmax_pct": want[2], "now": _describe(now, cand_mod.scale(policy, facts.speed_gbps)),
                "snippet": checked.snippet, "applied": False,
                "why": ("pause frames outnumber ECN marks: the queue reaches the PFC trigger before it marks enough; "
                        f"{'a lower Kmin' if dim == 0 else 'a higher Pmax'} marks earlier "
                        f"(one step of losslessd tune's grid inside policy {policy.name})"),
                "measure_it": f"losslessd tune --devices {device} --ports {device}:{port} --benchmark CMD "
                              f"--inventory INVENTORY"}
    return {"unavailable": f"{device} {port}: no earlier marking inside policy {policy.name}'s ECN bounds lints clean"}


def _describe(cand: Candidate | None, factor: float) -> str:
    if cand is None:
        return "unknown (thresholds differ between lossless queues or are not in bytes)"
    kmin, kmax = cand.scaled(factor)
    return f"Kmin {kmin} B, Kmax {kmax} B, Pmax {cand.pmax_pct:g} %"


def configs_from_captures(paths) -> dict[str, Found]:
    """device -> (platform, running config, `show version` output or None) from `pull` captures. The config is the
    outputs of the platform's running-config commands joined (Platform.config_reads: NX-OS's `show running-config
    ipqos all`, then `show running-config interface`); the version is what the last `show version` printed, a refusal
    included (no model in it: a model-dependent platform's proposal says so), None where it was not run."""
    out = {}
    for path in paths:
        try:
            cap = capture.read(read_text(path), str(path))  # (bounded; InputError for bytes that are not UTF-8)
        except InputError:
            continue
        device, platform = cap.header.get("device"), cap.header.get("platform")
        if device and platform in cand_mod.TUNABLE and cap.sections:
            reads = [c.line for c in PLATFORMS[platform].config_reads]
            parts = [next((s.output for s in cap.sections if s.command == line), None) for line in reads]
            if parts[0] is None:
                parts[0] = cap.sections[0].output  # a capture of other commands than the platform's own
            version = next((s.output for s in reversed(cap.sections) if s.command == "show version"), None)
            out[device] = (platform, cand_mod.joined_config([p for p in parts if p is not None]), version)
    return out
