"""The folder walk's groups on one tree of every construct it knows (fabric._walk, _Inputs): symbolic links (a loop,
out of the folder, to files, to device folders, broken), backups and copies (`backup/`, `*.bak`, dated, `old/`, a
device folder's copy), a snapshot (manifest.json), SONiC and OpenSM device folders with their companions, hidden
files and documents, a name that is not UTF-8, hard links. Each expected group is what docs/real-configs.md and the
walk's docstrings say of its construct, written out here, not what the walk gave: the walk was rewritten for speed
(session 45, docs/lint-at-scale.md) and must give these, in this order."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from losslessd.errors import InputError
from losslessd.fabric import _MAYBE_NOT_DEVICE, _Inputs, _not_device, _split_name, device_groups
from losslessd.model import ParseIssue
from losslessd.parse import _MAYBE_TAILS, _WORDS, _live_names, _one_of, named_in

EOS = "hostname {name}\ninterface Ethernet1/1\n   priority-flow-control on\n"
SONIC = '{{"DEVICE_METADATA": {{"localhost": {{"hostname": "{name}"}}}}}}\n'


def build(root: Path) -> Path:
    """The tree, under ``root``: fab/ (linted) and out/ (what fab's links reach out of it)."""
    fab, out = root / "fab", root / "out"
    for folder in ("leaf1/backup", "leaf1/frr", "ib1/old", "backup/leaf2", "leaf2", "snap/sw7", "snap/counters",
                   "snap/partial", "old", "deep/er", "out/sw9", "out/notes", "out/leaf5"):
        (root / folder if folder.startswith("out") else fab / folder).mkdir(parents=True)
    files = {
        # a fleet folder's files, and their copies beside them and in a folder of copies
        "sw1.cfg": EOS.format(name="sw1"), "sw1.cfg.bak": EOS.format(name="sw1"),
        "sw1-2026-12-04.cfg": EOS.format(name="sw1"), "backup/sw1.cfg": EOS.format(name="sw1"),
        "sw2.cfg.bak": EOS.format(name="sw2"),  # (a copy without its live file: read, it may be the only one)
        "10.0.0.1.cfg": EOS.format(name="mgmt1"), "leaf-1.cfg": EOS.format(name="leafone"),
        "old/sw3.cfg": EOS.format(name="sw3"), "sw3.cfg": EOS.format(name="sw3"),
        # a SONiC folder: its own files, a multi-ASIC namespace's, backups beside them and in its folder of copies,
        # companions (an image's own file, a database dump, FRR's folder)
        "leaf1/config_db.json": SONIC.format(name="leaf1"), "leaf1/config_db0.json": SONIC.format(name="leaf1"),
        "leaf1/config_db.json.orig": SONIC.format(name="leaf1"), "leaf1/backup/config_db.json": "{}\n",
        "leaf1/sonic_version.yml": "build_version: '202305'\n", "leaf1/frr/frr.conf": "frr version 8.5\n",
        "leaf1/notes.txt": "not a device\n",
        # a device folder and its copy in a folder of copies beside it
        "leaf2/config_db.json": SONIC.format(name="leaf2"), "backup/leaf2/config_db.json": SONIC.format(name="leaf2"),
        # OpenSM's folder and a copy of its configuration in old/
        "ib1/opensm.conf": "# opensm\nlmc 0\n", "ib1/partitions.conf": "Default=0x7fff, ipoib : ALL=full;\n",
        "ib1/old/opensm.conf": "# opensm\nlmc 0\n",
        # a snapshot written by `losslessd pull`: its manifest, counters and partial outputs are no devices
        "snap/manifest.json": "{}\n", "snap/counters/sw7.json": "{}\n", "snap/partial/sw6.txt": "x\n",
        "snap/sw7/config_db.json": SONIC.format(name="sw7"),
        # no devices: hidden, ours, documents and their copies
        ".hidden.cfg": "x\n", "README.md": "# fabric\n", "topology.yaml.bak": "links: []\n", "policy.yaml": "x: 1\n",
        "deep/er/sw8.cfg": EOS.format(name="sw8"),
        # what the links reach out of the folder: a device's folder, a file, a folder that is no device's
        "../out/sw9/config_db.json": SONIC.format(name="sw9"), "../out/sw10.cfg": EOS.format(name="sw10"),
        "../out/notes/a.cfg": EOS.format(name="a"), "../out/leaf5/config_db.json": SONIC.format(name="leaf5"),
    }
    for name, text in files.items():
        (fab / name).resolve().write_text(text) if name.startswith("..") else (fab / name).write_text(text)
    (fab / "loop").symlink_to(".")  # a link back to the folder walked
    (fab / "deep" / "er" / "up").symlink_to("../..")
    (fab / "sw1-link.cfg").symlink_to("sw1.cfg")  # a link to a file in the folder: the same device, read once
    (fab / "sw10.cfg").symlink_to(out / "sw10.cfg")  # a link to a file out of it: followed
    (fab / "sw9").symlink_to(out / "sw9")  # a link to a device's folder out of it: that device
    (fab / "notes").symlink_to(out / "notes")  # a link to another folder out of it: refused, named
    (fab / "gone.cfg").symlink_to("nowhere.cfg")  # a broken link: a device file that fails to read (SYS001)
    (fab / "leaf1" / "platform").symlink_to(out / "notes")  # a device folder's own link out: not walked
    os.link(out / "leaf5" / "config_db.json", fab / "hard.cfg")  # a hard link: its own device
    (fab / os.fsdecode(b"caf\xe9.cfg")).write_text(EOS.format(name="cafe"))  # a name that is not UTF-8
    return fab


def _steps(paths: list[str]) -> list:
    return [(s.code, s.source.file) if isinstance(s, ParseIssue) else s for s in _Inputs(paths).steps]


def test_every_construct_walks_to_its_documented_groups(tmp_path, monkeypatch):
    build(tmp_path)
    monkeypatch.chdir(tmp_path)  # (paths as a user gives them)
    f, cafe = "fab/", os.fsdecode(b"caf\xe9")
    assert _steps(["fab"]) == [
        ("SYS001", "fab/notes"),  # a link to a folder out of the linted ones that is no device's: named, not walked
        ("10.0.0.1", [f + "10.0.0.1.cfg"]),  # (an address's last number is no logrotate tail: the stem as pathlib's)
        (cafe, [f + cafe + ".cfg"]),  # (a name that is not UTF-8: its bytes kept, escaped, sorted as any)
        ("sw8", [f + "deep/er/sw8.cfg"]),  # (deep/er/up, a link back up, is not walked twice)
        ("gone", [f + "gone.cfg"]),  # a broken link: a device file that fails to read, not left out
        ("hard", [f + "hard.cfg"]),  # a hard link: a device of its own
        # OpenSM's folder, its companion, then its configuration's copy in a folder of copies below it
        ("ib1", [f + "ib1/opensm.conf", f + "ib1/partitions.conf", f + "ib1/old/opensm.conf"]),
        ("leaf-1", [f + "leaf-1.cfg"]),  # (a number alone before the suffix is no copy's tail: another switch)
        # SONiC's: its own files, the namespaces' by number, then its backups (in backup/, beside); the image's own
        # file, a document, FRR's folder and its link out are companions that read as no device
        ("leaf1", [f + "leaf1/config_db.json", f + "leaf1/config_db0.json", f + "leaf1/backup/config_db.json",
                   f + "leaf1/config_db.json.orig"]),
        ("leaf2", [f + "leaf2/config_db.json", f + "backup/leaf2/config_db.json"]),  # (its folder's copy, in backup/)
        ("sw7", [f + "snap/sw7/config_db.json"]),  # a snapshot: its manifest, counters/ and partial/ are no devices
        # a file with its copies, in a folder of copies then beside it (sorted); sw1-link.cfg is the same file, once
        ("sw1", [f + "sw1.cfg", f + "backup/sw1.cfg", f + "sw1-2026-12-04.cfg", f + "sw1.cfg.bak"]),
        ("sw10", [f + "sw10.cfg"]),  # a link to a file out of the folder: followed
        ("sw2.cfg", [f + "sw2.cfg.bak"]),  # a copy without its live file: read
        ("sw3", [f + "sw3.cfg", f + "old/sw3.cfg"]),
        ("sw9", [f + "sw9/config_db.json"]),  # a link to a device's folder out of the folder: that device
    ]  # (hidden files, README.md, policy.yaml, topology.yaml.bak: no devices; loop, a link to ".", not walked again)
    assert _Inputs(["fab"]).snapshots == [Path("fab/snap")]
    # named again beside its folder, a file is the one device, in its first place; named through the folder's link
    # to itself, the same files are not read twice (the broken link, a path of its own, is)
    sw1 = ("sw1", [f + "sw1.cfg", f + "backup/sw1.cfg", f + "sw1-2026-12-04.cfg", f + "sw1.cfg.bak"])
    assert _steps(["fab/sw1.cfg", "fab"])[:3] == [sw1, ("SYS001", "fab/notes"), ("10.0.0.1", [f + "10.0.0.1.cfg"])]
    through = _steps(["fab/loop", "fab"])
    assert [s for s in through if s[0] in ("gone", "sw1")] == [
        ("gone", [f + "loop/gone.cfg"]),
        ("sw1", [f + "loop/sw1.cfg", f + "loop/backup/sw1.cfg", f + "loop/sw1-2026-12-04.cfg", f + "loop/sw1.cfg.bak"]),
        ("gone", [f + "gone.cfg"])]
    # a name past NAME_MAX on the command line: said, the rest read
    assert _steps(["fab/" + "x" * 300 + ".cfg", "fab/snap"]) == [
        ("SYS001", "fab/" + "x" * 300 + ".cfg"), ("sw7", [f + "snap/sw7/config_db.json"])]


def test_device_groups_of_the_tree_refuse_the_link_out(tmp_path):
    fab = build(tmp_path)
    with pytest.raises(InputError, match="notes"):  # (the first refusal, as render --device reads it)
        device_groups(fab)


def test_a_name_the_walk_does_not_search_further_is_no_copy_and_no_document():
    # The walk searches a folder's names joined (parse.named_in) for what may be a copy's tail or a document's suffix
    # and reads only those further: every name the full rules take must be among them, whatever its case or script.
    # A copy's tail after `._-` begins with a word's first two letters, in either case as `re` ignores case: every
    # character that matches one (of all of Unicode: `ſ` is `s`, the Kelvin sign `k`) is in the class searched.
    for k in (0, 1):
        want = re.compile("(?i:" + "|".join(re.escape(w[k]) for w in _WORDS) + r"|\d)")
        searched = re.compile(_one_of({w[k] for w in _WORDS}))
        assert [hex(c) for c in range(0x110000) if want.fullmatch(chr(c)) and not searched.fullmatch(chr(c))] == []
    names = ["sw1.cfg", "sw1.cfg.ſave", "sw1.CFG.BAK", "sw1_2026-12-04.cfg", "log.1", "a~", "config_db.json",
             "gpu00001.capture", "README.md", ".hidden", "topology.yaml.orig", "x.md.bak", "leaf-1.cfg", "ib.Rpmnew",
             "sw9.cfg.bak\n", "caf\udce9.cfg.old", "a.dpkg-dist"]
    copies = named_in(_MAYBE_TAILS, names)
    assert [n for n in names if _live_names(n)] == [n for n in copies if _live_names(n)]
    assert {"sw1.cfg.ſave", "sw1.CFG.BAK", "sw1_2026-12-04.cfg", "log.1", "a~", "ib.Rpmnew", "sw9.cfg.bak\n",
            "a.dpkg-dist"} <= set(copies)
    assert "gpu00001.capture" not in copies and "config_db.json" not in copies  # (`_db` is no word's beginning)
    documents = named_in((_MAYBE_NOT_DEVICE,), names)
    assert [n for n in names if _not_device(n, _split_name(n)[1])] == [
        "README.md", ".hidden", "topology.yaml.orig", "x.md.bak"]
    assert {"README.md", ".hidden", "topology.yaml.orig", "x.md.bak"} <= set(documents)
    # in the names' order, each once; names holding NUL (none a listing gives) are searched one by one
    assert named_in(_MAYBE_TAILS, ["b.bak", "a.old", "b.bak"]) == ["b.bak", "a.old", "b.bak"]
    assert named_in(_MAYBE_TAILS, ["x\0.bak", "y.cfg"]) == ["x\0.bak"]
