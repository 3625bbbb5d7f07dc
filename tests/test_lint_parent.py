"""What the parent process of a parallel lint does itself: the folder walk, the devices the workers send back
(LazyDevice), the link rules over thousands of links alike, and which rules a worker can check alone."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bench.lint_scale import generate
from losslessd import fabric as fabric_mod
from losslessd.lint.engine import is_local, run
from losslessd.lint.registry import select
from losslessd.model import Source
from losslessd.policy import load_policy
from losslessd.rules import lnk
from losslessd.rules import sys as sys_rules

ROOT = Path(__file__).resolve().parent.parent
CLOS = ROOT / "tests" / "fixtures" / "topology" / "clos"
RULES = select()


def _fabric_tree(top: Path) -> None:
    """A folder of every kind of entry the walk meets."""
    top.mkdir()
    for name in ("a.cfg", "x.tar.cfg", ".hidden", "README.md", "notes.sarif"):
        (top / name).write_text("hostname a\n")
    (top / "topology.yaml").write_text("links: []\n")
    (top / "b").mkdir()
    (top / "b" / "c.json").write_text("{}")
    (top / "b" / "up").symlink_to("..")  # a link back to a folder being walked: not listed twice
    (top / "link-to-b").symlink_to("b")  # a second way into a folder listed already
    os.mkfifo(top / "f.cfg")  # not a folder: a device file candidate (its read says what it is)
    (top / "gone.cfg").symlink_to("nowhere")  # a broken link: the same
    sonic = top / "sonic"  # multi-ASIC: config_db<N>.json by namespace number after the host's files
    sonic.mkdir()
    for name in ("config_db.json", "qos.json", "config_db10.json", "config_db2.json", "config_db0.json", "x.txt"):
        (sonic / name).write_text("{}")
    (top / "sm").mkdir()
    for name in ("partitions.conf", "opensm.conf", "other.txt"):
        (top / "sm" / name).write_text("")
    snap = top / "snap"  # written by `losslessd pull`: its manifest and counters are not devices
    snap.mkdir()
    for name in ("manifest.json", "counters", "leaf9.cfg"):
        (snap / name).write_text("{}")


def test_file_links_are_followed_and_folder_links_only_inside_or_to_a_device_folder(tmp_path):
    """A link in a linted folder to `/` walked the whole disk (round 13): a link to a folder out of the folders linted
    is a SYS001 naming it, unless that folder is one device's (a SONiC folder: read as that device, not walked); a link
    to a file is read wherever it points (a fabric folder of links into a config backup store, a config_db.json linked
    to a shared copy: refusing them broke real layouts); a link back to the folder itself adds nothing."""
    fab, store = tmp_path / "fab", tmp_path / "store"
    fab.mkdir()
    (store / "leaf9").mkdir(parents=True)
    (store / "b.cfg").write_text("hostname b\n")
    (store / "leaf9" / "config_db.json").write_text("{}")
    (fab / "a.cfg").write_text("hostname a\n")
    (fab / "b.cfg").symlink_to("../store/b.cfg")
    (fab / "root").symlink_to("/")
    (fab / "here").symlink_to(".")
    (fab / "leaf9").symlink_to(store / "leaf9")

    def walked(*paths: Path) -> tuple[list[str], list[str]]:
        steps = fabric_mod._Inputs(paths).steps
        return ([f"{s.source.file}: {s.message}" for s in steps if not isinstance(s, tuple)],
                [f for s in steps if isinstance(s, tuple) for f in s[1]])

    refused, read = walked(fab)
    assert refused == [f"{fab / 'root'}: the symbolic link 'root' points to a folder out of the linted folders (to /) "
                       "that is no device's folder, and is not walked: name it on the command line to lint what it "
                       "holds"]
    assert sorted(read) == [str(fab / "a.cfg"), str(fab / "b.cfg"), str(fab / "leaf9" / "config_db.json")]
    refused, read = walked(fab, store)  # (each file once, as its first path names it)
    assert len(refused) == 1 and sorted(read) == sorted([str(fab / "a.cfg"), str(fab / "b.cfg"),
                                                        str(fab / "leaf9" / "config_db.json")])
    # the files of a SONiC folder: each read through its link, wherever it points
    sonic = tmp_path / "one" / "leaf1"
    sonic.mkdir(parents=True)
    (sonic / "config_db.json").symlink_to(store / "leaf9" / "config_db.json")
    (sonic / "qos.json").symlink_to("../qos-copy.json")
    (sonic.parent / "qos-copy.json").write_text("{}")
    refused, read = walked(sonic.parent)
    assert refused == [] and read == [str(sonic / "config_db.json"), str(sonic / "qos.json")]


def test_the_walk_names_each_device_file_as_pathlib_would(tmp_path, monkeypatch):
    top = tmp_path / "fab"
    _fabric_tree(top)
    snapshots: list[Path] = []
    groups = fabric_mod.device_groups(top, snapshots=snapshots)
    sonic = [top / "sonic" / n for n in ("config_db.json", "qos.json", "config_db0.json", "config_db2.json",
                                         "config_db10.json")]
    opensm = [top / "sm" / "opensm.conf", top / "sm" / "partitions.conf"]
    assert groups == [("a", [top / "a.cfg"]), ("c", [top / "b" / "c.json"]), ("f", [top / "f.cfg"]),
                      ("gone", [top / "gone.cfg"]), ("sm", opensm), ("leaf9", [top / "snap" / "leaf9.cfg"]),
                      ("sonic", sonic), ("x.tar", [top / "x.tar.cfg"])]
    assert snapshots == [top / "snap"]
    # The lint's own walk names the files as text: exactly what str() of those Paths says, however the folder
    # was written on the command line (a report names each file as it was reached).
    monkeypatch.chdir(tmp_path)
    for given in ("fab", "fab/", "./fab", "fab//", str(top)):
        texts = fabric_mod._groups(Path(given), None, [])
        assert texts == [(name, [str(p) for p in files]) for name, files in fabric_mod.device_groups(Path(given))]
        assert texts[0][1] == [str(Path(given) / "a.cfg")]
    monkeypatch.chdir(top)
    assert fabric_mod._groups(Path("."), None, [])[0] == ("a", ["a.cfg"])  # (not "./a.cfg")
    assert fabric_mod._groups(Path("sonic"), None, []) == [("sonic", [str(Path("sonic") / p.name)
                                                                               for p in sonic])]
    # the files a topology names (by real path) are left out, and a file named alone is its own device
    skip = {os.path.realpath(top / "a.cfg")}
    assert [n for n, _ in fabric_mod.device_groups(top, skip)] == ["c", "f", "gone", "sm", "leaf9", "sonic", "x.tar"]
    assert fabric_mod.device_groups(top / "x.tar.cfg") == [("x.tar", [top / "x.tar.cfg"])]
    assert fabric_mod.device_groups(top / "README.md") == []


def test_a_lint_reads_the_fifo_and_the_broken_link_the_walk_found_and_says_what_they_are(tmp_path):
    top = tmp_path / "fab"
    _fabric_tree(top)
    fabric = fabric_mod.load_fabric([top])
    said = {i.source.file: i.message for i in fabric.issues if i.code == "SYS001"}
    assert "FIFO" in said[str(top / "f.cfg")] and str(top / "gone.cfg") in said


def _parallel_and_serial(paths, **kw):
    policy = load_policy("roce-dscp26")
    return (fabric_mod.lint(paths, policy, RULES, jobs=2, **kw), fabric_mod.lint(paths, policy, RULES, jobs=1, **kw))


def _rows(findings):
    return [(f.code, f.device, f.port, f.message, f.source) for f in findings]


_HEAVY = set(fabric_mod._HEAVY)


@pytest.mark.slow
def test_what_workers_send_of_every_device_is_the_device_parsed_here(tmp_path):
    """Every field of every device but its ports and buffers (the Sources a worker sends as plain values are made
    when read: each equal to the one parsed in one process), the issues a topology's LLDP file adds included."""
    shutil.copytree(CLOS, tmp_path / "clos")
    with open(tmp_path / "clos" / "lldp" / "spine1.txt", "a") as f:
        f.write("Et3   \n")  # a row LLDP cannot read: SYS002 on spine1, added by the topology (in this process)
    two, one = _parallel_and_serial([tmp_path / "clos"])
    assert _rows(two.findings) == _rows(one.findings)
    assert any(f.code == "SYS002" and f.device == "spine1" and "Et3" in f.message for f in two.findings)
    assert list(two.fabric.devices) == list(one.fabric.devices)
    for name, device in two.fabric.devices.items():
        assert isinstance(device, fabric_mod.LazyDevice)
        assert device.model_dump(exclude=_HEAVY) == one.fabric.devices[name].model_dump(exclude=_HEAVY)
    host = two.fabric.devices["h1"]
    assert host._sources and type(host.source) is Source and host.source == one.fabric.devices["h1"].source
    assert host.source is host.source  # (made once)


@pytest.mark.slow
def test_a_parallel_lint_returns_with_its_pool_ended():
    """The pool's manager thread is joined before the lint returns: left running, it raced Python's exit handler
    (concurrent.futures.process._python_exit), which printed "Exception ignored ... Bad file descriptor" after about
    one `--jobs 2` lint in four. Checked right at the return, where the thread was still ending."""
    import threading

    for _ in range(3):
        fabric_mod.lint([CLOS], load_policy("roce-dscp26"), RULES, jobs=2)
        left = [t for t in threading.enumerate() if type(t).__module__ == "concurrent.futures.process"]
        assert left == []


def test_device_issue_rules_run_in_the_workers_unless_a_topology_adds_issues():
    """SYS002 and SYS003 read a device's own issues, to which only a topology file adds (its LLDP and routing files'):
    a lint without one has the workers check them; the subnet manager rules read other devices, always here, and so
    does SYS004 (a capture header naming another device of the lint is said once for the fleet:
    fabric._claimed_twice)."""
    without = {r.code for r in RULES if is_local(r, topology=False)}
    with_topology = {r.code for r in RULES if is_local(r, topology=True)}
    assert with_topology < without and without - with_topology == {"SYS002", "SYS003"}
    assert "SYS004" not in without
    assert all(issubclass(r, sys_rules._IssueRule) for r in RULES if r.code in without - with_topology)
    assert not any(r.code.startswith("IBS") for r in RULES if r.code in without)


@pytest.mark.slow
def test_device_issues_found_in_the_workers_are_those_of_one_process(tmp_path):
    for capture in (ROOT / "examples" / "fabric").glob("gpu0*.capture"):
        text = capture.read_text().replace("enabled     0   0   0   1   0", "enabled     0   0   x   1   0", 1)
        (tmp_path / capture.name).write_text(text)
    two, one = _parallel_and_serial([tmp_path])
    issues = [f for f in one.findings if f.code == "SYS002"]
    assert issues and _rows(two.findings) == _rows(one.findings)


class _Counted(lnk.MtuMismatch):
    calls: list[tuple[str, str]] = []

    def check_link(self, ctx, link, a, b):
        self.calls.append((str(a), str(b)))
        return super().check_link(ctx, link, a, b)


@pytest.mark.parametrize("odd", [None, "gpu00003"])
def test_links_alike_are_checked_once_and_their_findings_are_each_links(tmp_path, odd):
    """A rack of hosts built alike on switch ports built alike: one check_link for all their links while it finds
    nothing; a host whose MTU is above its switch port's is a link of its own kind, and found."""
    generate(tmp_path, 1)  # leaf0000 and the 8 hosts on its ports, by LLDP
    if odd is not None:
        capture = tmp_path / f"{odd}.capture"
        text = capture.read_text()
        assert "/mtu\n9000\n" in text
        capture.write_text(text.replace("/mtu\n9000\n", "/mtu\n9216\n"))
    fabric = fabric_mod.load_fabric([tmp_path])
    assert len(fabric.links) == 8
    _Counted.calls = []
    result = run(fabric, load_policy("roce-dscp26"), [_Counted])
    found = [f.devices for f in result.findings if f.code == "LNK002"]  # (on the switch: its MTU is the smaller)
    if odd is None:
        assert found == [] and len(_Counted.calls) == 1
    else:
        assert found == [["leaf0000", odd]] and len(_Counted.calls) == 2 and odd in _Counted.calls[1][0]


def test_the_bench_fabric_called_clean_has_nothing_to_report(tmp_path):
    """bench/lint_scale.py measures a fabric without findings: its switches (64 ports, grown from the example's 6)
    have a shared headroom pool sized for their ports, so BUF004 has nothing to say on each (it did on all 2,000
    switches at N=2,000); only the fabric's undeclared routing is told (DLK001, an info)."""
    generate(tmp_path, 2)
    result = fabric_mod.lint([tmp_path], load_policy("roce-dscp26"), RULES, jobs=1)
    assert [(f.code, f.severity.value) for f in result.findings] == [("DLK001", "info")]


_ODD_HOSTS = [  # (what the generated capture says, what one host of each kind says instead): a finding of each rule
    ("/mtu\n9000\n", "/mtu\n9216\n"),  # LNK002: the NIC's MTU above its switch port's
    ("/speed\n100000\n", "/speed\n25000\n"),  # LNK003
    ("enabled     0   0   0   1   0", "enabled     0   0   0   1   1"),  # LNK001: PFC on one more priority
    ("enabled     0   0   0   1   0", "enabled     0   0   0   0   0"),  # LNK005: PFC off at the NIC
    ("Priority trust state: dscp", "Priority trust state: pcp"),  # LNK004: trust
    ("roce_np/enable/3:1", "roce_np/enable/3:0"),  # LNK004: notification point off where the switch marks ECN
    (None, None),
]


@pytest.mark.slow
def test_skipping_links_alike_finds_what_checking_every_link_finds(tmp_path, monkeypatch):
    """check_link of all five link rules yields on a link or not by its two ends' views and device kinds alone:
    checking each link (no link skipped) finds the same, in one process and with the views workers sent."""
    generate(tmp_path, 2)  # two leaves, 16 hosts: each kind of odd host twice, between hosts built alike
    for n, capture in enumerate(sorted(tmp_path.glob("*.capture"))):
        was, now = _ODD_HOSTS[n % len(_ODD_HOSTS)]
        if was is not None:
            text = capture.read_text()
            assert was in text
            capture.write_text(text.replace(was, now, 1))
    rules = [r for r in RULES if issubclass(r, lnk._LinkRule)]
    assert len(rules) == 5
    policy = load_policy("roce-dscp26")
    skipping = [_rows(fabric_mod.lint([tmp_path], policy, rules, jobs=jobs).findings) for jobs in (1, 2)]

    def every_link(self, ctx):
        for link, a, b, _ in lnk.roce_links(ctx, self):
            yield from self.check_link(ctx, link, a, b)

    monkeypatch.setattr(lnk._LinkRule, "check", every_link)
    every = _rows(fabric_mod.lint([tmp_path], policy, rules, jobs=1).findings)
    assert {row[0] for row in every} == {r.code for r in rules}
    assert skipping == [every, every]


def test_the_files_a_topology_reads_are_no_device_by_any_path_and_a_hard_link_stays_one(tmp_path):
    """The topology's own files (its `lldp:` outputs) are left out of the devices by the _identity keys the read-once
    check computes (one stat a file; os.path.realpath ran on every file of every group): a symbolic link to one is
    the same file, left out too; a hard link is named by its own path (_identity: two configs a dedup tool linked stay
    two devices), as realpath named it, so it is a device file candidate."""
    top = tmp_path / "clos"
    shutil.copytree(CLOS, top)
    (top / "lldp" / "link.txt").symlink_to("spine1.txt")
    (top / "again.txt").symlink_to("lldp/spine1.txt")
    expected = ["h1", "h2", "h3", "h4", "leaf1", "leaf2", "spine1", "spine2"]
    inputs = fabric_mod._Inputs([top])
    assert [name for name, _ in inputs.groups] == expected
    assert [name for name, _ in fabric_mod.device_groups(top, inputs.spec.files)] == expected
    os.link(top / "lldp" / "spine1.txt", top / "lldp" / "hard.txt")  # (now both have two links: named by real path)
    inputs = fabric_mod._Inputs([top])
    assert [name for name, _ in inputs.groups] == [*expected[:6], "hard", *expected[6:]]
    assert [name for name, _ in fabric_mod.device_groups(top, inputs.spec.files)] == [*expected[:6], "hard",
                                                                                     *expected[6:]]
    assert fabric_mod._Inputs([top / "again.txt", top]).groups == inputs.groups  # named alone: still the topology's


@pytest.mark.parametrize("fillers", [fabric_mod.FILLERS, 0])
def test_a_header_sent_makes_the_device_it_was_made_of(fillers, monkeypatch):
    """What a worker sends of a device (_header: the names of the fields it sends, one tuple for every device that
    sends the same ones, and their values) makes in the parent (_filler: one unpacking, or past FILLERS field by
    field) a LazyDevice equal to the device in every field but its ports and buffers, its Sources made when read."""
    monkeypatch.setattr(fabric_mod, "FILLERS", fillers)
    monkeypatch.setattr(fabric_mod, "_fillers", {})
    one = fabric_mod.load_fabric([CLOS])
    sent = {name: fabric_mod._header(device) for name, device in one.devices.items()}
    assert len({id(names) for names, _ in sent.values()}) < len(sent)  # (devices alike send one tuple of names)
    for name, device in one.devices.items():
        names, values = sent[name]
        lazy = fabric_mod._filler(names)(values, ([], [], {}, []), name, device.files, None)
        assert isinstance(lazy, fabric_mod.LazyDevice) and lazy._group == name and lazy._sent == ([], [], {}, [])
        assert lazy.model_dump(exclude=_HEAVY) == device.model_dump(exclude=_HEAVY)
        for field in ("source", "roce_tos_source", "hwsku_source"):
            assert getattr(lazy, field) == getattr(device, field)
    assert len(fabric_mod._fillers) == min(fillers, len({names for names, _ in sent.values()}))


def test_plain_makes_document_references_plain_at_any_depth():
    """_plain's shortcuts for values that go as they are give what its type tests give: a Source that refers into
    a document (its line looked up) made a plain one in a list, a tuple and a Neighbor; lists and tuples copied."""
    from losslessd.model import DocRef, Neighbor

    class Doc:
        path = "cfg.json"

        def pointer(self, parts):
            return "/" + "/".join(parts)

        def line(self, parts, field):
            return 7

    ref = DocRef(Doc(), ("PORT", "Ethernet0"))
    facts = [("Ethernet0", {"a": 1}, ref, 3, None, 2.5, True)]
    plain = fabric_mod._plain(facts)
    assert plain == [("Ethernet0", {"a": 1}, Source(file="cfg.json", line=7, pointer="/PORT/Ethernet0"), 3, None,
                      2.5, True)]
    assert type(plain[0][2]) is Source and plain is not facts and plain[0][1] is facts[0][1]
    neighbor = fabric_mod._plain([Neighbor(port="Ethernet0", remote_device="h1", source=ref)])[0]
    assert type(neighbor.source) is Source and neighbor.source.line == 7
