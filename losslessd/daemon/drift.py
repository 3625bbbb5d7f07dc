"""Config drift: pull every device's configuration into a throw-away snapshot, lint it, and raise an
event for each finding that appeared (finding_new) or went away (finding_cleared) since the last run.

Findings are told apart by their fingerprint (rule, device, port, key; never the message), as
baselines are. A finding_new event stays open while its finding stands and ends when it clears, so
the open finding_new events are the drift not yet dealt with. The first run after a start compares
with the last run the history holds; with no history it only sets the baseline (no event flood).

A device whose config was not read this run (down, login refused, a command failed; pulled but not read by
the lint: a file over the size limit, a parser that failed on a bug; a rule that failed on it) is not clean:
its findings, those of other devices that involve it, and every fabric finding (any may depend on it:
a missing switch can make a fabric-wide check no longer apply) stand as of their last run until it is
read again. One not read in the baseline run is baselined when it is first read.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Collection
from dataclasses import field, replace
from pathlib import Path

from ..api import lint, load_fabric
from ..collect import COMMAND_FAILED, pull
from ..inventory import Inventory
from ..lint.finding import Finding
from ..model import Fabric
from ..monitor import Event, QueueMaps, queue_maps_of
from ..parse import INTERNAL_ERROR
from ..records import record
from ..tune.propose import Found, configs_from_captures

FABRIC = "fabric"  # the device name of findings about no single device (fabric-scope rules)


@record(frozen=True)
class _Seen:
    """What drift remembers of a finding; the message names it in the event."""

    device: str
    port: str | None
    code: str
    severity: str
    message: str
    devices: frozenset[str]  # every device it involves: while one is not read, the finding stands


@record
class Round:
    """One drift run: its events, and each device's findings (for the history and /metrics)."""

    events: list[Event]
    findings: dict[str, list[Finding]]

    def counts(self, device: str) -> dict[tuple[str, str], int]:
        return dict(Counter((f.code, f.severity.value) for f in self.findings.get(device, [])))


@record
class Pulled:
    """One drift pull: the snapshot's findings, and why each device that was not read was not."""

    findings: list[Finding]
    missing: dict[str, str]
    configs: dict[str, Found] = field(default_factory=dict)  # device -> (platform, running config, version)
    queues: dict[str, QueueMaps] = field(default_factory=dict)  # device read -> its ports' priority -> queues maps
    # device read -> its port -> (the device, port) cabled to it, as its config (DEVICE_NEIGHBOR) or LLDP says (cabled)
    cables: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)


def pull_and_lint(hosts: Inventory, policy, *, known_hosts: Path | None, concurrency: int,
                  timeout_s: float, cancel: pull.Cancel | None = None) -> Pulled:
    """Blocking (run it in a thread): collect configs as `losslessd pull` does, host keys verified,
    then lint the snapshot. SNMP is left to the daemon's own poller. ``cancel`` ends the pull (CancelledError)."""
    return _snapshot(hosts, policy, known_hosts=known_hosts, concurrency=concurrency, timeout_s=timeout_s,
                     cancel=cancel)


def read_configs(hosts: Inventory, *, known_hosts: Path | None, concurrency: int, timeout_s: float,
                 cancel: pull.Cancel | None = None) -> Pulled:
    """Blocking (run it in a thread): pull the configs of ``hosts`` as drift does and parse them, without the lint:
    each device's configs for the proposals and its priority -> queues maps for the ECN detector (the daemon reads
    them at its start and refreshes them, drift or not). ``missing``: the devices whose config was not read, and
    why; ``findings`` is empty. ``cancel`` ends the pull (CancelledError)."""
    return _snapshot(hosts, None, known_hosts=known_hosts, concurrency=concurrency, timeout_s=timeout_s,
                     cancel=cancel)


def _snapshot(hosts: Inventory, policy, *, known_hosts: Path | None, concurrency: int, timeout_s: float,
              cancel: pull.Cancel | None) -> Pulled:
    """Pull ``hosts`` into a throw-away snapshot (_pull) and read it: linted with ``policy`` (pull_and_lint; a device
    the lint did not read to its end is missing, not_linted), or only parsed when it is None (read_configs; a device
    the model holds nothing of is missing, _not_read)."""
    with tempfile.TemporaryDirectory(prefix="losslessd-drift-" if policy is not None else "losslessd-configs-") as tmp:
        out = Path(tmp) / "snapshot"
        missing, read = _pull(hosts, out, known_hosts=known_hosts, concurrency=concurrency, timeout_s=timeout_s,
                              cancel=cancel)
        configs = configs_from_captures(out / capture for capture in read.values())
        findings: list[Finding] = []
        fabric: Fabric | None = None
        # A cancel (a stop) ends the reading and the lint too, at the next device or rule: CancelledError.
        progress = None if cancel is None else cancel.check
        if policy is not None:
            linted = lint([out], policy, progress=progress)
            findings, fabric = linted.findings, linted.fabric
            missing.update(not_linted(linted, read))
        elif read:
            fabric = load_fabric([out], progress=progress)
            missing.update(_not_read(fabric, read, _inventory_names(fabric, read)))
        whole = {name: capture for name, capture in read.items() if name not in missing}
        if fabric is None:
            return Pulled(findings, missing, configs)
        return Pulled(findings, missing, configs, queue_maps(fabric, whole), cabled(fabric, whole))


def _pull(hosts: Inventory, out: Path, *, known_hosts: Path | None, concurrency: int,
          timeout_s: float, cancel: pull.Cancel | None) -> tuple[dict[str, str], dict[str, str]]:
    """Pull the configs of ``hosts`` into the snapshot ``out`` (SNMP left out): (device not read -> why, device read
    -> its capture file)."""
    configs_only = Inventory({name: replace(host, snmp=None) for name, host in hosts.hosts.items()})
    pull.prepare(out)
    result = pull.pull(configs_only, out, pull.Options(known_hosts=known_hosts, concurrency=concurrency,
                                                       timeout_s=timeout_s, retries=0), cancel=cancel)
    missing = {d.name: f"{d.code}: {d.message}" for d in result.failed}
    for d in result.devices.values():
        refused = [i["message"] for i in d.issues if i["code"] == COMMAND_FAILED]
        if refused and d.name not in missing:
            missing[d.name] = f"{COMMAND_FAILED}: {refused[0]}"
    read = {d.name: d.record["capture"] for d in result.devices.values() if d.status == "ok" and d.name not in missing}
    return missing, read


def _inventory_names(fabric, pulled: dict[str, str]) -> dict[str, str]:
    """The model's device name -> the inventory name of the device pulled into that capture (pulled: inventory name
    -> capture file). A device is named by its config (a SONiC hostname), which need not be its inventory name: its
    capture file (one per inventory device) tells which device it is."""
    by_capture = {capture: name for name, capture in pulled.items()}
    return {d.name: by_capture[Path(f).name] for d in fabric.devices.values() for f in d.files
            if Path(f).name in by_capture}


def queue_maps(fabric, pulled: dict[str, str]) -> dict[str, QueueMaps]:
    """Inventory name -> its ports' queue maps (monitor.QueueMaps), for each device pulled and read; a port whose
    maps are not known is left out (the ECN detector then reads its queue marks as unknown)."""
    names = _inventory_names(fabric, pulled)
    return {names[d.name]: queue_maps_of(d) for d in fabric.devices.values() if d.name in names}


def cabled(fabric, pulled: dict[str, str]) -> dict[str, dict[str, tuple[str, str]]]:
    """Inventory name of each device pulled and read -> its port -> the (device, port) at the cable's other end, as
    the device itself reports it (model.Neighbor: its config's DEVICE_NEIGHBOR, its LLDP neighbours), the far end
    named as the report names it (a host name, which the daemon takes for the inventory name). The fabric's links
    need both ends read, and the daemon reads switches only; a port reported with two different far ends is left
    out (LNK008's case)."""
    names = _inventory_names(fabric, pulled)
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for device in fabric.devices.values():
        if device.name not in names:
            continue
        ports: dict[str, tuple[str, str] | None] = {}
        for nb in device.neighbors:
            if nb.remote_port is not None:
                far = (nb.remote_device, nb.remote_port)
                ports[nb.port] = far if ports.get(nb.port, far) == far else None
        out[names[device.name]] = {port: far for port, far in ports.items() if far is not None}
    return out


def not_linted(result, pulled: dict[str, str]) -> dict[str, str]:
    """Devices pulled (name -> capture file) whose lint did not run to its end, and why: a capture the lint could
    not read (its SYS001/SYS900 issue), a rule or parser that failed on a bug there, or on the fabric (then every
    device: a fabric rule's conclusions about each are missing). Their findings of this run are incomplete, so
    drift must not take what is missing from them for fixed."""
    inventory_name = _inventory_names(result.fabric, pulled)
    why: dict[str, str] = {}
    for f in result.findings:
        if f.code == INTERNAL_ERROR:
            if f.device is None and f.source is None:  # a fabric rule: no device's conclusions are whole
                return {name: f"{INTERNAL_ERROR}: {f.message}" for name in pulled}
            if f.device in inventory_name:  # (its findings carry the config's name: both stand)
                why.setdefault(inventory_name[f.device], f"{INTERNAL_ERROR}: {f.message}")
                why.setdefault(f.device, f"{INTERNAL_ERROR}: {f.message}")
    for name, reason in _not_read(result.fabric, pulled, inventory_name).items():
        why.setdefault(name, reason)
    return why


def _not_read(fabric, pulled: dict[str, str], inventory_name: dict[str, str]) -> dict[str, str]:
    """Devices pulled (name -> capture file) that the model holds no device of, and why (the capture's SYS001/SYS900
    issue)."""
    read = set(inventory_name.values())
    issues = {Path(i.source.file).name: i for i in reversed(fabric.issues) if i.source and i.source.file}
    return {name: f"{issue.code}: {issue.message}" if (issue := issues.get(capture)) else
            "no device was read from its capture" for name, capture in pulled.items() if name not in read}


class Drift:
    """Compares each run's findings with the previous run's. Pure: no I/O, time passed in."""

    def __init__(self):
        self._last: dict[str, _Seen] | None = None  # fingerprint -> finding of the last run
        self._open: dict[str, Event] = {}  # fingerprint -> its open finding_new event
        self._unbaselined: set[str] = set()  # devices the baseline run could not read

    def restore(self, last: list, open_events: list[Event]) -> None:
        """Continue from the history: ``last`` are the StoredFindings of each device's latest run,
        ``open_events`` the finding_new events still open (matched to them by place and message). No
        stored findings (no run yet, or a clean one): the next run sets the baseline."""
        if not last:
            return
        self._last = {f.fingerprint: _Seen(f.device, f.port, f.code, f.severity, f.message, frozenset({f.device}))
                      for f in last}
        by_place = {(e.device, e.port, e.code, e.message): e for e in open_events if e.kind == "finding_new"}
        for fp, seen in self._last.items():
            event = by_place.get((seen.device, seen.port, seen.code, _message(seen)))
            if event is not None:
                self._open[fp] = event

    def compare(self, findings: list[Finding], devices: list[str], now: float,
                missing: Collection[str] = ()) -> Round:
        """``devices``: every inventory device, so a device with no findings is recorded as clean;
        ``missing``: devices whose config was not read, left out of this run (see the module docstring)."""
        missing = set(missing) | ({FABRIC} if missing else set())
        current = {f.fingerprint: f for f in findings if not missing & _seen(f).devices}
        standing = {fp: seen for fp, seen in (self._last or {}).items() if missing & seen.devices}
        by_device: dict[str, list[Finding]] = {d: [] for d in devices}
        for f in current.values():
            by_device.setdefault(f.device or FABRIC, []).append(f)
        for device in missing | {seen.device for seen in standing.values()}:
            by_device.pop(device, None)  # not wholly read: the history and /metrics keep its last run
        events: list[Event] = []
        if self._last is None:
            self._unbaselined = set(missing)
        else:
            for fp, f in current.items():
                if fp not in self._last and not self._unbaselined & _seen(f).devices:
                    event = Event(kind="finding_new", device=f.device or FABRIC, port=f.port, priority=None,
                                  start_unix_s=now, message=_message(_seen(f)), severity=f.severity.value,
                                  basis="lint", code=f.code,
                                  numbers={k: float(v) for k, v in f.data.items() if _is_number(v)})
                    self._open[fp] = event
                    events.append(event)
            for fp, seen in self._last.items():
                if fp in current or fp in standing:
                    continue
                opened = self._open.pop(fp, None)
                if opened is not None:
                    opened.end_unix_s = now
                    events.append(opened)
                events.append(Event(kind="finding_cleared", device=seen.device, port=seen.port, priority=None,
                                    start_unix_s=now, end_unix_s=now, message=_message(seen), severity="info",
                                    basis="lint", code=seen.code))
        self._last = {**standing, **{fp: _seen(f) for fp, f in current.items()}}
        self._unbaselined &= missing
        return Round(events, by_device)


def _seen(f: Finding) -> _Seen:
    device = f.device or FABRIC
    return _Seen(device, f.port, f.code, f.severity.value, f.message, frozenset({device, *f.devices}))


def _message(seen: _Seen) -> str:
    return f"{seen.code}: {seen.message}"


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
