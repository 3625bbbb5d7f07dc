"""What the path engine reads of a device, sent by the lint worker that parsed it (parallel lint).

The path and deadlock rules read the ports of every cabled device: their maps, PFC, queues and PGs, and
the device's buffer profiles. In one process they read the model itself. In a parallel lint the devices
stay in the workers (losslessd.fabric), and parsing every one of them again in the parent would take
longer than the workers saved; so each worker sends, per device, its ports *without their sources*:
ports configured alike share one template (Context.port_key), which pickle sends once.

A source is a reference into its document, which stays in the worker. In a template each source is a
`Ref`, the attribute path from the port (or the device) that holds it: a rule that reports a Problem
resolves it on the real device (the parent parses a device again only for its findings' sources). The
path code chooses between sources (`port.map_source or port.source`), so ports share a template only
when the sources it may fall back from are present on both alike (_presence).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any

from ..model import Device, Model, Port, SharedPort, Source
from ..records import record
from ..tuples import NamedTuple

Step = str | tuple  # an attribute name, or (key,) for an item of a dict


class Ref(NamedTuple):
    """Where a source is, from the port ("port") or the device ("device") a Problem names."""

    base: str
    steps: tuple[Step, ...]

    def resolve(self, device: Device, port: str) -> Source | None:
        obj: Any = device.ports[port] if self.base == "port" else device
        for step in self.steps:
            obj = obj[step[0]] if isinstance(step, tuple) else getattr(obj, step)
            if obj is None:
                return None
        return obj


def real_source(source: Source | Ref | None, device: Device, port: str) -> Source | None:
    """A Problem's source as a finding shows it: a Ref resolved on the real device (parsed again if need be)."""
    return source.resolve(device, port) if isinstance(source, Ref) else source


@record
class PathFacts:
    """One device as the path engine reads it: per port (in order) its template, alias and description, and the
    device's buffer profiles (what first_break reads of a PG's profile)."""

    ports: list[tuple[str, Port, str | None, str | None]]
    buffer_profiles: dict


@cache
def _plan(cls: type) -> tuple[tuple[str, str], ...]:
    """(field, what it holds) for the fields of a model class that hold sources, directly or below."""
    hints = typing.get_type_hints(cls)
    plan = []
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        inner = args[0] if len(args) == 1 else tp
        if inner is Source:
            plan.append((f.name, "source"))
        elif isinstance(inner, type) and issubclass(inner, Model):
            plan.append((f.name, "model"))
        elif typing.get_origin(inner) is dict and _holds_model(typing.get_args(inner)[1]):
            plan.append((f.name, "dict"))
    return tuple(plan)


def _holds_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Model)


def _stripped(obj: Model, base: str, steps: tuple, done: dict[tuple, Any]) -> Model:
    """A copy of ``obj`` whose sources are Refs. An object shared by ports that do not share a template (a SONiC
    scheduler) is copied once per place it is reached at (``done``): its Refs are the way to it from the port,
    and another port may reach it by another way (its queue 0, where the first has it as queue 6)."""
    place = (id(obj), base, steps)
    known = done.get(place)
    if known is not None:
        return known
    cls: Any = type(obj)  # (a class is hashable; mypy says a model class is not)
    if cls is SharedPort:  # (copied, it is the plain Port it stands for, as copy.copy and pickle make it)
        cls = Port
    out = done[place] = _copier(cls)(obj)
    for name, kind in _plan(cls):
        value = getattr(obj, name)
        if value is None:
            continue
        if kind == "source":
            setattr(out, name, Ref(base, (*steps, name)))
        elif kind == "model":
            setattr(out, name, _stripped(value, base, (*steps, name), done))
        else:
            setattr(out, name, {k: _stripped(v, base, (*steps, name, (k,)), done) for k, v in value.items()})
    return out


def _presence(port: Port) -> tuple:
    """Which of the sources the path code falls back from a port has (rules/common.py first_break, rules/pth.py
    flows: map, PFC and trust sources, a PG's and a queue scheduler's): ports alike share a template only when
    these match, so that a Ref resolves to the source the same code would have picked on the port itself. A
    SharedPort answers from its shared part and its own sources, without making its queues and PGs (every port of a
    topology run is asked: making them all cost a worker's share of a topology run 13 % of its instructions)."""
    head = (port.map_source is None, port.pfc_source is None, port.trust_source is None, port.source is None)
    if not isinstance(port, SharedPort) or port._shared is None:
        return head + (tuple(pg.source is None for pg in port.priority_groups.values()),
                       tuple(q.scheduler is None or q.scheduler.source is None for q in port.queues.values()))
    (queues, _), (_, pg_at), _, makers = port._shared
    sources = port._sources  # (a place with a maker holds a key, whose entry is made: never None)
    return head + (tuple(sources[at] is None and (makers is None or makers[at] is None) for at in pg_at),
                   tuple(scheduler is None or scheduler.source is None for _, scheduler, _, _ in queues))


def path_facts(ctx, device: Device) -> PathFacts:
    """What a worker sends of ``device`` for the path engine (see the module's docstring)."""
    templates = ctx.memo(_templates)
    done: dict[tuple, Any] = {}
    ports = []
    for port in device.ports.values():
        key = (ctx.port_key(port), _presence(port))
        template = templates.get(key)
        if template is None:
            template = templates[key] = _stripped(port, "port", (), done)
        ports.append((port.name, template, port.alias, port.description))
    profiles = {name: _stripped(p, "device", ("buffer_profiles", (name,)), done)
                for name, p in device.buffer_profiles.items()}
    return PathFacts(ports, profiles)


def _templates(ctx) -> dict[tuple, Port]:
    """Per run: (port key, sources present) -> the template of the ports configured alike."""
    return {}


def _shallow(obj: Any) -> Any:
    """A copy of a slotted object with the slots it has set (copy.copy would ask a LazyDevice for the parts it
    left in the worker, and so parse it again)."""
    cls: Any = type(obj)
    out = object.__new__(cls)
    for name in _slots(cls):
        try:
            value = object.__getattribute__(obj, name)
        except AttributeError:
            continue
        object.__setattr__(out, name, value)
    return out


@cache
def _slots(cls: type) -> tuple[str, ...]:
    return tuple(name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ()))


@cache
def _copier(cls: type):
    """``copy(obj)``: a copy of a model object whose fields are all set (a port: thousands per fabric), without
    _shallow's look at each slot."""
    names = [f.name for f in dataclasses.fields(cls)]
    body = "".join(f"    n.{name} = o.{name}\n" for name in names)
    code = f"def copy(o):\n    n = new(cls)\n{body}    return n\n"
    env: dict[str, Any] = {"new": object.__new__, "cls": cls}
    exec(compile(code, f"<copy {cls.__name__}>", "exec"), env)  # noqa: S102 - field names only
    return env["copy"]


def _renamed(template: Port, name: str, alias: str | None, description: str | None) -> Port:
    port = _copier(Port)(template)
    port.name, port.alias, port.description = name, alias, description
    return port


def device_view(device: Device, facts: PathFacts) -> Device:
    """``device`` (a header sent by a worker) with the ports and buffer profiles the path engine reads; anything
    else it holds is what ``device`` holds (what the worker did not send is parsed again if asked for)."""
    view = _shallow(device)
    view.ports = {name: _renamed(t, name, alias, description) for name, t, alias, description in facts.ports}
    view.buffer_profiles = facts.buffer_profiles
    return view


class Views(Mapping):
    """Devices by name as the path engine reads them: each one's view, made when first asked for."""

    def __init__(self, devices: Mapping[str, Device], facts):
        self._devices = devices
        self._facts = facts  # facts(device) -> PathFacts
        self._made: dict[str, Device] = {}

    def __getitem__(self, name: str) -> Device:
        view = self._made.get(name)
        if view is None:
            device = self._devices[name]
            view = self._made[name] = device_view(device, self._facts(device))
        return view

    def __iter__(self):
        return iter(self._devices)

    def __len__(self) -> int:
        return len(self._devices)

    def __contains__(self, name: object) -> bool:
        return name in self._devices
