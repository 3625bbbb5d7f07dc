"""What a worker works out of each device besides its findings (its RoCE-port selection, the link rules' port views,
NIC007's parameters: losslessd.fabric._share) is taken from an earlier device where one is known to give the same,
and is then exactly what the device gives on its own; a parallel lint's reports are those of one process. A forked
worker keeps the objects of the shares it is done with (it ends by os._exit, which frees nothing) until its peak
RSS reaches its budget, and while its page faults cost it less than freeing, and sends what it sends when it frees
them."""

from __future__ import annotations

import gc
import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from bench.lint_scale import generate, host_capture
from losslessd import fabric as fabric_mod
from losslessd.lint.engine import Context, PortChoice, _Grouper
from losslessd.lint.registry import select
from losslessd.model import Fabric
from losslessd.policy import load_policy
from losslessd.report import render
from losslessd.rules import lnk
from losslessd.rules.nic import DcqcnParamsInconsistent

RULES = select()
# A DCQCN reaction-point parameter as the bench's hosts print it (mlx5 sysfs, `grep -s . .../ecn/roce_rp/*`).
_ALPHA = "roce_rp/initial_alpha_value:1023\n"


def _fleet(tmp_path: Path) -> Path:
    """Three leaves built alike and their 24 hosts; leaf0002's port Ethernet0 named Ethernet1000 in every table (the
    same settings, so the same device key, under another name), gpu00003 with its own alpha."""
    generate(tmp_path, 3)
    config = tmp_path / "leaf0002" / "config_db.json"
    text, renamed = re.subn(r'"Ethernet0(?=[|",])', '"Ethernet1000', config.read_text())
    assert renamed > 10
    config.write_text(text)
    capture = tmp_path / "gpu00003.capture"
    assert _ALPHA in capture.read_text()
    capture.write_text(capture.read_text().replace(_ALPHA, "roce_rp/initial_alpha_value:512\n"))
    return tmp_path


def _worked_out(ctx: Context, device) -> tuple:
    facts = lnk.PfcMismatch().device_facts(ctx, device)
    return ctx.selection(device), facts.views, facts.cited, DcqcnParamsInconsistent().device_facts(ctx, device)


def test_a_device_alike_an_earlier_one_is_given_what_it_gives_on_its_own(tmp_path):
    """Worked out as a worker does (the devices sorted into classes first, Context.first_alike), each device's
    selection, views and NIC007 parameters equal those worked out for it alone; devices alike with the same port
    names share one views dict (sent once), a switch alike under other port names and a host of other parameters
    get their own."""
    fabric = fabric_mod.load_fabric([_fleet(tmp_path)])
    policy = load_policy("roce-dscp26")
    ctx = Context(Fabric(devices=fabric.devices), policy)
    _Grouper(ctx).classes()
    devices = fabric.devices
    leaf0, leaf1, leaf2 = devices["leaf0000"], devices["leaf0001"], devices["leaf0002"]
    assert ctx.first_alike(leaf1) is leaf0 and ctx.first_alike(leaf2) is leaf0  # (the shortcut is tried on both)
    for name, device in devices.items():
        alone = Context(Fabric(devices={name: device}), policy)
        assert _worked_out(ctx, device) == _worked_out(alone, device), name
    views = {name: _worked_out(ctx, device)[1] for name, device in devices.items()}
    assert views["leaf0001"] is views["leaf0000"]
    assert views["leaf0002"] is not views["leaf0000"] and "Ethernet1000" in views["leaf0002"]
    assert "Ethernet0" not in views["leaf0002"] and list(views["leaf0002"]) == list(leaf2.ports)
    assert views["gpu00001"] is views["gpu00002"]
    params = {name: DcqcnParamsInconsistent().device_facts(ctx, devices[name])[0][1]
              for name in ("gpu00001", "gpu00002", "gpu00003")}
    assert params["gpu00001"] is params["gpu00002"] and params["gpu00003"] is not params["gpu00001"]
    assert params["gpu00003"]["roce_rp/initial_alpha_value"] == 512
    assert params["gpu00001"]["roce_rp/initial_alpha_value"] == 1023
    host = ctx.selection(devices["gpu00001"])
    assert host == [PortChoice("enp65s0f0np0", True, "host-nic", "every NIC port of a host is RoCE-facing")]
    assert type(host[0]) is PortChoice and host[0].shown is True


def test_the_reports_of_workers_are_those_of_one_process(tmp_path):
    """The bench fabric with the renamed switch and the odd host: JSON and text reports byte for byte."""
    folder = _fleet(tmp_path)
    policy = load_policy("roce-dscp26")
    one, two = (fabric_mod.lint([folder], policy, RULES, jobs=jobs) for jobs in (1, 2))
    assert [f.code for f in one.findings].count("NIC007") == 1
    for fmt in ("json", "text"):
        assert render(fmt, two, color=False) == render(fmt, one, color=False)


def _ports_of_every_input(tmp_path: Path) -> list:
    """Every port of the repository's host inputs (tests/test_mlx5_reads_once's: examples, fixtures, real-world
    captures, the bench's hosts), its example and real-world switch configs, and the shared corpus's files when
    present (SharedPorts keyed as any port's content here)."""
    from tests.test_mlx5_reads_once import CORPUS, ROOT, _host_files

    paths: list[Path] = []
    for folder in (ROOT / "examples", ROOT / "tests" / "realworld", CORPUS):
        if folder.is_dir():
            paths += sorted(p for p in folder.rglob("*") if p.is_file() and p.stat().st_size < 4 << 20
                            and p.suffix not in (".md", ".yaml", ".py", ".sh", ".gz", ".png", ".db"))
    for name, text in _host_files().items():
        paths.append(tmp_path / Path(name).name)
        paths[-1].write_text(text)
    # (an input no device is made of is a ParseIssue, without ports)
    return [port for path in paths for port in getattr(fabric_mod.parse_one(path.stem, [path]), "ports", {}).values()]


def _partition(key, ports: list) -> list[list[int]]:
    classes: dict = {}
    for i, port in enumerate(ports):
        classes.setdefault(key(port), []).append(i)
    return sorted(classes.values())


def test_a_queues_scheduler_keyed_in_place_keys_ports_as_its_token_did(monkeypatch, tmp_path):
    """Session 39, part c: a port's queues' schedulers and ECN are keyed by their content in place (a host's are its
    own objects: tokening them was a third of its port key). Both ways on every port the repository (and the corpus)
    has: the ports the new key puts together are those the old one (each scheduler and ECN tokened) put together; and
    two hosts alike, whose schedulers are other objects, key alike, one weight apart keys apart."""
    from losslessd.lint import groups
    from losslessd.lint.groups import Keys
    from losslessd.model import Port

    (tmp_path / "inputs").mkdir()
    ports = _ports_of_every_input(tmp_path / "inputs")
    assert sum(bool(p.queues) for p in ports) >= 100
    new_keys = Keys()
    new = groups._content_function(Port)
    real = groups._content_parts
    monkeypatch.setattr(groups, "_content_parts", lambda *a, item_of=None, **kw: real(*a, **kw))  # (the old parts)
    old = groups._content_function.__wrapped__(Port)
    monkeypatch.undo()
    assert "c_x2_scheduler" in groups._content_expression(Port, "o", {"_id": id, "_tuple": tuple})
    old_keys = Keys()
    assert _partition(lambda p: new(p, new_keys._memo, new_keys.token), ports) == \
        _partition(lambda p: old(p, old_keys._memo, old_keys.token), ports)
    hosts = []
    for n in (1, 2):
        (tmp_path / f"gpu{n}.capture").write_text(host_capture(n))
        hosts.append(fabric_mod.parse_one(f"gpu{n}", [tmp_path / f"gpu{n}.capture"]).ports["enp65s0f0np0"])
    one, two = hosts
    assert one.queues[3].scheduler is not two.queues[3].scheduler
    keys = Keys()
    assert keys.port(one) == keys.port(two)
    two.queues[3].scheduler.weight += 1
    keys = Keys()
    assert keys.port(one) != keys.port(two)


def _in_worker(tasks: list[tuple], usage: list[tuple] | None) -> tuple[list[bytes], list[int], bool]:
    """In a forked worker: each task as _lint_share runs it (its peak RSS and CPU read from ``usage``, else the real
    ones), what it sent, how many shares it kept after each, and whether the collector was told to leave them alone."""
    if usage is not None:
        fabric_mod._usage = iter(usage).__next__
    sent, kept = [], []
    for task in tasks:
        sent.append(fabric_mod._lint_share(task))
        kept.append(len(fabric_mod._kept))
    return sent, kept, gc.get_freeze_count() > 0


def _worker_run(tasks: list[tuple], usage: list[tuple] | None = None) -> tuple[list[bytes], list[int], bool]:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        return pool.submit(_in_worker, tasks, usage).result()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork start method here")
def test_a_forked_worker_keeps_its_shares_objects_until_its_budget_and_sends_the_same(tmp_path):
    """Shares of the fleet run in one forked worker: with no budget nothing is kept; with one, shares are kept while
    the peak RSS after them is under it, and once it is reached the kept set stops growing (a fleet larger than the
    budget); none is kept while the worker's system CPU (its page faults) is over KEEP_SYSTEM_PART of its user CPU;
    and with the real usage and a budget of 1 TiB. What the worker sends is the same byte for byte whatever it
    keeps."""
    folder = _fleet(tmp_path)
    shares = fabric_mod._shares(fabric_mod._Inputs([folder]).groups, 8)
    assert len(shares) >= 5

    def tasks(keep: int) -> list[tuple]:
        return fabric_mod._tasks(shares, False, load_policy("roce-dscp26"), RULES, None, True, keep)

    freed, none_kept, _ = _worker_run(tasks(0))
    assert none_kept == [0] * len(shares)
    mib = fabric_mod.MIB
    rss = [(mib * (10 + 10 * i), 1.0, 0.0) for i in range(len(shares))]
    sent, kept, frozen = _worker_run(tasks(35 * mib), rss)
    assert kept == [1, 2, 3] + [3] * (len(shares) - 3) and frozen
    assert sent == freed
    # Page faults dearer than freeing (system CPU over KEEP_SYSTEM_PART of user CPU): shares 2 and 3 are freed.
    faults = [(mib, 1.0, 0.0), (mib, 1.0, 0.5), (mib, 1.0, 0.11)] + [(mib, 1.0, 0.1)] * (len(shares) - 3)
    sent, kept, frozen = _worker_run(tasks(35 * mib), faults)
    assert kept == [1, 1, 1] + list(range(2, len(shares) - 1)) and frozen
    assert sent == freed
    sent, _, _ = _worker_run(tasks(1 << 40))  # (1 TiB; kept as the real faults allow)
    assert sent == freed
