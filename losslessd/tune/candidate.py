"""A candidate's config per device: rendered with the platform's template (losslessd.render, its `ecn`
section on the tuned ports), cut to what changes the running config, applied offline and linted. A candidate
that lints with an error is refused and never reaches a device or a benchmark.

Refused: an error finding the config as found did not have, or any error of the ECN rules on a tuned port
(ECN004 "ECN marks after PFC pauses" above all) even if the config as found had it too, or ECN004's warning on a
tuned port (marks after PFC once enough of the pool's lossless PGs are congested: with no load in the policy, every
lossless PG of the pool, as the refusal always was).
"""

from __future__ import annotations

import re
from dataclasses import field, replace

from .. import render
from ..errors import InputError
from ..fix import lint_device, writes_nothing
from ..fix.apply import SHAPES
from ..lint.finding import Finding, Severity
from ..model import Device, DeviceKind, Port, Source
from ..monitor import carrying_queues, queue_maps_of
from ..parse import parser_for
from ..parse.base import Input
from ..platforms import PLATFORMS
from ..policy import Policy
from ..records import record
from ..render import PortFacts, families
from ..rules.common import marks_ecn
from .space import Candidate

# Platforms a tuned setting can be rendered for (Platform.tune): a template with an `ecn` section and a model of how
# the config takes a snippet (losslessd.fix.apply), so the result can be linted before it is used.
TUNABLE = tuple(p.id for p in PLATFORMS.values() if p.tune)


def untunable(name: str, platform: str) -> str:
    """Why ``name`` cannot be tuned (its platform is not TUNABLE). A host NIC is no marking point: a ConnectX (mlx5)
    is DCQCN's notification point, answering marks with CNPs, and its reaction point, cutting its rate on them
    (NVIDIA MLNX_OFED user manual, "Explicit Congestion Notification"); its sysfs ecn/roce_np and ecn/roce_rp hold an
    on/off per priority, the CNPs' marking and the reaction's rate parameters (rpg_time_reset, rpg_ai_rate,
    min_time_between_cnps...), and no Kmin, Kmax or Pmax, which are the switch queues' (the host's rendered `ecn`
    section is the same whatever the thresholds: every trial would measure one config)."""
    if platform in PLATFORMS and PLATFORMS[platform].kind == DeviceKind.host:
        return (f"{name}: a {platform} host marks no ECN (its NIC answers marks with CNPs and cuts its rate on them; "
                "its ecn/ files hold no Kmin, Kmax or Pmax): tune the switches its RoCE traffic crosses, and leave "
                "it out of --devices")
    return f"{name}: platform {platform} has no ECN template to tune (tunable: {', '.join(TUNABLE)})"


@record
class DeviceConfig:
    """One device's running config as read, parsed, with the ports to tune."""

    name: str
    platform: str
    text: str
    device: Device
    ports: list[PortFacts]
    baseline: list[Finding] = field(default_factory=list)  # its own findings as found
    # Each tuned port's egress queues carrying the lossless priorities by its own maps (render.carried_queues)
    queues: dict[str, list[int]] = field(default_factory=dict)
    # The command family its snippets and put-backs are written for (render.families): the one its own lines show
    # (Device.config_family: EOS `tx-queue` or `uc-tx-queue` blocks), else its model's; None: not one that differs.
    family: str | None = None

    @property
    def port_names(self) -> list[str]:
        return [p.name for p in self.ports]


def config_input(name: str, text: str) -> Input:
    return Input(f"{name} (running config)", text)


def joined_config(parts: list[str]) -> str:
    """A running config printed in parts (Platform.config_reads) as one text, each part ending its last line."""
    return parts[0] if len(parts) == 1 else "\n".join(p.rstrip("\n") for p in parts) + "\n"


def load(name: str, platform: str, text: str, policy: Policy, ports: list[str] | None = None, *,
         version: str | None = None, model: str | None = None, remedy: str | None = None) -> DeviceConfig:
    """Parse ``text`` (the device's running config) and pick the ports to tune: ``ports``, or the policy's
    RoCE-facing ports (as lint and render pick them). The hardware model, where the platform's ECN commands differ
    by family (render.families): ``model`` (--model), else the config's own, else the one ``version`` (its `show
    version` output) prints; ``remedy``: what to do where no model is known (tune's --model by default). InputError
    when nothing can be tuned."""
    if platform not in TUNABLE:
        raise InputError(untunable(name, platform))
    parser = parser_for(platform)
    try:
        device = parser.parse([config_input(name, text)], name)
    except InputError as exc:
        raise InputError(f"{name}: its running config does not parse: {exc}") from None
    if model:
        device.hardware, device.hardware_source = model, None
    elif not (device.hardware or device.hwsku) and version and (m := getattr(parser, "MODEL", re.compile("^$"))
                                                                .search(version)) and m.group(1).strip():
        device.hardware = m.group(1).strip()
        device.hardware_source = Source(file=f"{name} (show version)", line=version.count("\n", 0, m.start()) + 1)
    family = _check_family(name, platform, device, version is not None, remedy)
    missing = [p for p in ports or () if p not in device.ports]
    if missing:
        raise InputError(f"{name}: no port {', '.join(missing)} in its config")
    facts, _ = render.device_facts(device, policy, ports or None)
    no_speed = [f.name for f in facts if f.speed_gbps is None]
    if no_speed:
        raise InputError(f"{name}: speed of {', '.join(no_speed)} unknown, so their ECN thresholds cannot be scaled")
    if not facts:
        raise InputError(f"{name}: no RoCE-facing port to tune (give --ports)")
    queues = render.carried_queues(facts, policy.lossless.priorities, remedy="leave the port out of --ports")
    current(name, platform, text)  # (before any trial: refused at the first candidate, after the as-found runs)
    cfg = DeviceConfig(name, platform, text, device, facts, queues=queues, family=family)
    cfg.baseline = lint_device(device, policy, [config_input(name, text)]) or []
    return cfg


def _check_family(name: str, platform: str, device: Device, asked: bool,
                  remedy: str | None = None) -> str | None:
    """The family the `ecn` commands are rendered for: the one the running config's own lines show (an EOS switch
    whose blocks say `tx-queue` takes `tx-queue`, whatever model was given), else the model's. Refuse before any trial
    when it is not known, or its ECN is not a threshold tune can move, naming the device and what to give."""
    model = device.hardware or device.hwsku
    family = device.config_family or families.resolve(platform, model)
    if family == "qfx5000":
        # render: QFX5000 schedulers take no temporal buffer, so the snippet writes the fixed fill levels of
        # Juniper's validated design (QFX5000_ECN_FILL_PCT) whatever the candidate's bytes: nothing to search.
        raise InputError(f"{name}: a {model} (Juniper QFX5000) writes ECN as fixed fill levels of a queue buffer "
                         "given in percent, not as byte thresholds, so tune has no Kmin/Kmax to move on it; leave it "
                         "out of --devices")
    if family is not None or "ecn" not in families.FAMILY_SECTIONS.get(platform, frozenset()):
        return family
    listed = "; ".join(f.description for f in families.FAMILIES[platform])
    seen = (f"its model {model!r}{families.model_note(model, device.hardware_source)} matches none of them" if model
            else "its `show version` printed no model" if asked else "its model is not known")
    remedy = remedy or f"give --model {name}:MODEL (the hardware model `show version` prints)"
    raise InputError(f"{name}: the {platform} ECN commands differ between families ({listed}), and {seen}: {remedy}")


def scale(policy: Policy, speed_gbps: float) -> float:
    ref = policy.ecn.speed_reference_gbps
    return speed_gbps / ref if ref else 1.0


def snippet(cfg: DeviceConfig, policy: Policy, cand: Candidate) -> str:
    """The platform's `ecn` section for the tuned ports with ``cand``'s thresholds (scaled to each port's
    speed) and mark probability."""
    # (the profile render --device makes of the device: its classes, the classifiers it holds, its policies ...)
    prof = render.device_profile(policy, cfg.device, cfg.ports, cfg.platform, family=cfg.family, all_facts=False)
    ports = []
    for port in prof.ports:
        kmin, kmax = cand.scaled(scale(policy, port.speed_gbps))
        ports.append(replace(port, kmin_bytes=kmin, kmax_bytes=kmax, wred_profile=f"ROCE_LOSSLESS_{kmin}_{kmax}"))
    pmax = int(cand.pmax_pct) if float(cand.pmax_pct).is_integer() else cand.pmax_pct
    prof = replace(prof, ports=ports, mark_probability_pct=pmax)
    return render.render(cfg.platform, render.restrict(prof, {"ecn"}, cfg.port_names))


@record
class Checked:
    """A candidate for one device: what would be pushed and what lint says of the result."""

    device: str
    snippet: str  # cut to what changes the running config ("" when nothing changes)
    applied: str  # the running config with the snippet applied (offline model, losslessd.fix.apply)
    findings: list[Finding]
    refusals: list[Finding]

    @property
    def refused(self) -> bool:
        return bool(self.refusals)

    def reasons(self) -> list[str]:
        return [f"{f.code} {f.port or ''}: {f.message}".replace(" :", ":") for f in self.refusals]


def current(name: str, platform: str, text: str) -> str:
    """``name``'s running config as candidates are cut against it (fix.apply.Shape.current); InputError naming the
    device and line where a line's block depends on a tab's width, which the cut could misplace."""
    return SHAPES[platform].current(text, f"{name} (running config)", remedy=(
        "the switch writes no tab: remove the tabs from that line's text on the device (a banner's or comment's); "
        "nothing was pushed"))  # (tune and the daemon's proposals alike)


def check(cfg: DeviceConfig, policy: Policy, cand: Candidate) -> Checked:
    """The snippet that moves ``cfg`` to ``cand`` (empty when its tuned queues hold those settings already,
    however the config words them), the config it makes, and what lint says of that config."""
    shape = SHAPES[cfg.platform]
    now = current(cfg.name, cfg.platform, cfg.text)
    if ecn_settings(cfg, policy, now) == expected(cfg, policy, cand):
        cut, applied = "", now
    else:
        cut = shape.changes(now, snippet(cfg, policy, cand))
        applied = shape.apply(now, cut)
    found = lint_device(cfg.device, policy, [config_input(cfg.name, applied)])
    if found is None:
        raise InputError(f"{cfg.name}: the config with candidate {cand.describe()} no longer parses")
    known = {f.fingerprint for f in cfg.baseline}
    tuned = set(cfg.port_names)
    # (ECN004's congested-pool warning too on a tuned port, the one with data break_even_congested: a threshold the
    # tuner picks should mark before PFC at the switch's own worst case, as before session 33 made that a warning for
    # thresholds written by others; not ECN004's other warnings, e.g. a stated pause threshold the rule accepts)
    # (a predicate, not membership in a list of them: findings compare field by field, thousands of them per candidate)
    refusals = [f for f in found if not f.unverified and (f.code.startswith("ECN") and f.port in tuned and (
        f.severity == Severity.error or (f.code == "ECN004" and "break_even_congested" in f.data))
        or (f.severity == Severity.error and f.fingerprint not in known))]
    return Checked(cfg.name, "" if writes_nothing(cut) else cut, applied, found, refusals)


def lossless_queues(device: Device, policy: Policy, ports: list[str]) -> dict[str, dict[int, list[int] | None]]:
    """Each of ``ports``' lossless priorities -> the egress queues that carry it by the device's own maps
    (monitor.carrying_queues, the lookup the daemon's detectors and the trial's sums read queue counters through:
    with TC 3 on queue 4, queue 4 holds priority 3's ECN); None where the maps do not say."""
    maps = queue_maps_of(device).carries
    return {port: {prio: carrying_queues(maps, port, prio) for prio in sorted(policy.lossless.priorities)}
            for port in ports}


def as_found(cfg: DeviceConfig, policy: Policy) -> Candidate | None:
    """The tuned ports' ECN settings as found, at the reference speed, when every queue carrying a lossless priority
    on every tuned port has the same known ones (None otherwise: the search then starts from the policy's default)."""
    found = ecn_settings(cfg, policy, cfg.text, cfg.device)
    seen = set()
    for facts in cfg.ports:
        ecn = found.get(facts.name)
        if ecn is None:
            return None
        f = scale(policy, facts.speed_gbps)
        seen.add((round(ecn[0] / f), round(ecn[1] / f), ecn[2]))
    if len(seen) != 1:
        return None
    kmin, kmax, pmax = seen.pop()
    return Candidate(kmin, kmax, pmax)


Ecn = tuple[int, int, float]  # Kmin bytes, Kmax bytes, Pmax percent, as a port's lossless queue has them


def ecn_settings(cfg: DeviceConfig, policy: Policy, text: str, device: Device | None = None) -> dict[str, Ecn | None]:
    """Each tuned port's ECN settings in ``text`` (the device's config; ``device``: it parsed), read with losslessd's
    parser on the queues that carry the lossless priorities by that config's own maps (lossless_queues); None for a
    port whose maps do not place a lossless priority, whose carrying queues differ, that do not surely mark (marking
    off, or not known to be on: a queue with thresholds and marking off is not one the candidate holds), or whose
    thresholds the parser could not convert."""
    states = ecn_states(cfg, policy, text, device, every=True)
    out: dict[str, Ecn | None] = {}
    for name, rows in states.items():
        seen = {_marking(row) for row in rows}
        out[name] = seen.pop() if len(seen) == 1 else None
    return out


def _marking(row: list) -> Ecn | None:
    """A queue's ECN settings (an ecn_states row) when it marks, as ECN001 reads it (rules.common.marks_ecn: on, not
    unknown), with every threshold known; else None."""
    _, on, kmin, kmax, pmax, _ = row
    return (kmin, kmax, pmax) if on is True and kmin is not None and kmax is not None and pmax is not None else None


def expected(cfg: DeviceConfig, policy: Policy, cand: Candidate) -> dict[str, Ecn]:
    """What each tuned port should hold once ``cand`` is pushed."""
    return {p.name: (*cand.scaled(scale(policy, p.speed_gbps)), float(cand.pmax_pct)) for p in cfg.ports}


def ecn_states(cfg: DeviceConfig, policy: Policy, text: str, device: Device | None = None, *,
               every: bool = False) -> dict[str, list[list]]:
    """Each tuned port's queues carrying a lossless priority (by ``text``'s own maps) as parsed: [queue, ECN on,
    Kmin, Kmax, Pmax, what could not be converted], all None for a queue without ECN settings; ECN on as lint reads
    it (rules.common.marks_ecn). It says something of every port, also one whose carrying queue marks nothing or
    differs from another: what a put-back is checked against there (JSON, kept with the tune's origins). ``every``:
    a lossless priority no queue carries adds a row of None (queue None), so ecn_settings sees the gap."""
    if device is None:
        device = parser_for(cfg.platform).parse([config_input(cfg.name, text)], cfg.name)
    out: dict[str, list[list]] = {}
    for name, carried in lossless_queues(device, policy, cfg.port_names).items():
        port = device.ports.get(name)
        indices: list[int | None] = [*sorted({q for queues in carried.values() for q in queues or ()})]
        if every and any(not queues for queues in carried.values()):
            indices.append(None)
        out[name] = [[index, *_queue_state(port, index)] for index in indices]
    return out


def _queue_state(port: Port | None, index: int | None) -> tuple:
    """(ECN on, Kmin, Kmax, Pmax, unconverted) of queue ``index`` of ``port``, all None where the queue or its ECN
    settings are not in the config: the one place the tuner reads a queue's ECN."""
    queue = port.queues.get(index) if port is not None and index is not None else None
    if port is None or queue is None or queue.ecn is None:
        return (None,) * 5
    ecn = queue.ecn
    return (marks_ecn(port, index), ecn.min_threshold_bytes, ecn.max_threshold_bytes,
            None if ecn.mark_probability_pct is None else float(ecn.mark_probability_pct), ecn.unconverted)


def ecn_check(cfg: DeviceConfig, policy: Policy, want: dict[str, Ecn | None],
              states: dict[str, list[list]] | None = None):
    """A check of a running config read back after a push: None when every tuned port holds ``want``, else what
    differs. A port whose wanted settings are unknown is checked against ``states`` (ecn_states as found: a put-back)
    where given, else not checked."""
    def check(text: str) -> str | None:
        try:
            device = parser_for(cfg.platform).parse([config_input(cfg.name, text)], cfg.name)
            have = ecn_settings(cfg, policy, text, device)
            found = ecn_states(cfg, policy, text, device) if states is not None else {}
        except InputError as exc:
            return f"the running config read back does not parse: {exc}"
        wrong = [f"{port} has {_show(have.get(port))}, not {_show(value)}" for port, value in want.items()
                 if value is not None and have.get(port) != value]
        wrong += [f"{port}'s queues carrying lossless priorities hold {_shown_states(found.get(port))}, not "
                  f"{_shown_states(rows)} as found" for port, rows in (states or {}).items()
                  if want.get(port) is None and found.get(port) != rows]
        return "; ".join(wrong) if wrong else None
    return check


def _shown_states(rows: list[list] | None) -> str:
    if not rows:
        return "no queue"
    return ", ".join(f"queue {q}: " + ("no ECN settings" if on is None and kmin is None else
                                       f"ECN {'on' if on else 'off' if on is False else 'unknown'}"
                                       + (f", Kmin {kmin} B, Kmax {kmax} B, Pmax {pmax:g} %" if kmin is not None
                                          and kmax is not None and pmax is not None else "")
                                       + (f" ({unconverted})" if unconverted else ""))
                     for q, on, kmin, kmax, pmax, unconverted in rows)


def _show(ecn: Ecn | None) -> str:
    if ecn is None:
        return "no ECN marking with known thresholds"
    return f"Kmin {ecn[0]} B, Kmax {ecn[1]} B, Pmax {ecn[2]:g} %"
