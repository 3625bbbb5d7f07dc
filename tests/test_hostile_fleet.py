"""Fleet folders of hostile shapes (hostile round 14): a device's folder (SONiC's config_db.json, OpenSM's
opensm.conf) that also holds other devices. Nothing in a linted folder may leave the run without a word."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time

import pytest

from losslessd.errors import EXIT_FINDINGS, EXIT_INPUT, InputError
from losslessd.limits import _unchanged, read_bytes

from .clirun import ROOT, losslessd

FABRIC = ROOT / "examples" / "fabric"
EOS = ROOT / "tests" / "fixtures" / "raw" / "arista_eos" / "roce-leaf.cfg"
SONIC = FABRIC / "leaf1" / "config_db.json"


def _devices(stdout: str) -> list[str]:
    return [d["name"] for d in json.loads(stdout)["devices"]]


def test_stray_config_db_at_the_fabric_root_keeps_every_device(tmp_path):
    # A config_db.json copied to the root of the example fabric made the root one SONiC switch: the 7 other
    # devices (captures, spine1.cfg, the leaf1 folder) were left out without a word, "1 device checked", exit 1.
    fabric = tmp_path / "fabric"
    shutil.copytree(FABRIC, fabric)
    shutil.copy(SONIC, fabric / "config_db.json")
    ran = losslessd("lint", "-f", "json", str(fabric))
    assert ran.returncode == EXIT_FINDINGS, ran.stderr
    assert sorted(_devices(ran.stdout)) == ["gpu01", "gpu02", "gpu03", "gpu05", "gpu06", "leaf1", "leaf2", "spine1"]
    # the root's switch and leaf1/'s are both named leaf1 by their DEVICE_METADATA: the second is named, not lost
    said = [f["message"] for f in json.loads(ran.stdout)["findings"] if f["code"] == "SYS001"]
    assert any("device name 'leaf1' also comes from" in m for m in said), said


def test_device_folder_holding_another_platforms_config(tmp_path):
    # leaf1/ of a pull holding the switch's config_db.json and an EOS running-config put there by hand
    folder = tmp_path / "leaf1"
    folder.mkdir()
    shutil.copy(SONIC, folder / "config_db.json")
    shutil.copy(EOS, folder / "running.cfg")
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    assert sorted(_devices(ran.stdout)) == ["leaf1", "roce-leaf1"], ran.stdout[-2000:]


def test_sonic_folders_own_companions_stay_unread(tmp_path):
    # an /etc/sonic copy: its other databases, version file and FRR folder are no devices and no findings
    folder = tmp_path / "sonic"
    (folder / "frr").mkdir(parents=True)
    shutil.copy(SONIC, folder / "config_db.json")
    (folder / "counters_db.json").write_text('{"COUNTERS_PORT_NAME_MAP": {"Ethernet0": "oid:0x1"}}\n')
    (folder / "sonic_version.yml").write_text("build_version: '202305'\n")
    (folder / "frr" / "frr.conf").write_text("frr version 8.5\nrouter bgp 65100\n")
    (folder / "platform").symlink_to(ROOT / "losslessd")  # a link out to a folder that is no device's
    ran = losslessd("lint", "-f", "json", str(folder))
    report = json.loads(ran.stdout)
    assert _devices(ran.stdout) == ["leaf1"]
    assert not [f for f in report["findings"] if f["code"] == "SYS001"]


def test_etc_sonic_own_files_are_not_sniffed(tmp_path):
    # /etc/sonic's own files at their fixed names (sonic-buildimage: sonic_version.yml, snmp.yml, constants.yml,
    # sonic-environment, generated_services.conf, minigraph.xml) hold no configuration: each was read and sniffed by
    # every platform (0.4 ms a file); one that is not text (here) was named a device file that failed, SYS001
    from losslessd.parse import SONIC_OWN_FILES

    folder = tmp_path / "leaf1"
    folder.mkdir()
    shutil.copy(SONIC, folder / "config_db.json")
    for name in SONIC_OWN_FILES - {"constants.yml"}:
        (folder / name).write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)))
    (folder / "constants.yml").mkdir()  # (a folder so named, and a file at another name, are still looked at)
    shutil.copy(EOS, folder / "constants.yml" / "minigraph.xml")
    (folder / "other.cfg").write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)))
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    report = json.loads(ran.stdout)
    assert sorted(_devices(ran.stdout)) == ["leaf1", "roce-leaf1"], ran.stdout[-2000:]
    said = [f["location"]["file"].rsplit("/", 1)[1] for f in report["findings"] if f["code"] == "SYS001"]
    assert said == ["other.cfg"], said


def test_backups_in_a_device_folder_are_named_once_and_not_read(tmp_path):
    # `cp config_db.json config_db.json.bak` before an edit (and a dated copy) in an /etc/sonic copy: each was read as
    # a second switch leaf1, a SYS001 error (exit 1 on a clean folder); now each is an info naming what it copies,
    # and the switch is read from config_db.json alone, whatever the backup holds
    folder = tmp_path / "sonic"
    folder.mkdir()
    shutil.copy(SONIC, folder / "config_db.json")
    (folder / "config_db.json.bak").write_text(SONIC.read_text(encoding="utf-8").replace("leaf1", "old-leaf1"))
    shutil.copy(SONIC, folder / "config_db.json.2024-05-01")
    (folder / "config_db.json.d").mkdir()  # (a folder so named is walked: its config is a device)
    shutil.copy(EOS, folder / "config_db.json.d" / "running.cfg")
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    report = json.loads(ran.stdout)
    assert _devices(ran.stdout) == ["leaf1", "roce-leaf1"]
    assert not [f for f in report["findings"] if f["code"] == "SYS001"], report["findings"]
    named = sorted(f["location"]["file"].rsplit("/", 1)[1] for f in report["findings"] if f["code"] == "SYS004"
                   and "backup of the device's config_db.json" in f["message"])
    assert named == ["config_db.json.2024-05-01", "config_db.json.bak"]
    assert report["devices"][0]["files"] == [str(folder / "config_db.json")]


def test_a_companion_over_the_file_limit_is_told_by_its_head(tmp_path):
    # an /etc/sonic copy's COUNTERS_DB dump over the file limit (tens of MiB on a real switch) was named a device file
    # too large (SYS001, exit 1); a config over the limit beside it still is
    folder = tmp_path / "leaf1"
    folder.mkdir()
    shutil.copy(SONIC, folder / "config_db.json")
    counters = {f"COUNTERS:oid:0x{n:x}": {"SAI_PORT_STAT_IF_IN_OCTETS": str(n)} for n in range(30000)}
    (folder / "counters_db.json").write_text(json.dumps(counters))  # (1.8 MB)
    ran = losslessd("lint", "-f", "json", "--max-file-mb", "1", str(tmp_path))
    assert _devices(ran.stdout) == ["leaf1"]
    assert not [f for f in json.loads(ran.stdout)["findings"] if f["code"] == "SYS001"]
    eos = EOS.read_text(encoding="utf-8")
    (folder / "big.cfg").write_text(eos + "!\n" * (1 + 2**20 // 2))
    ran = losslessd("lint", "-f", "json", "--max-file-mb", "1", str(tmp_path))
    said = [f["location"]["file"] for f in json.loads(ran.stdout)["findings"] if f["code"] == "SYS001"]
    assert [s.rsplit("/", 1)[1] for s in said] == ["big.cfg"], said


def test_a_companion_over_the_file_limit_with_a_byte_order_mark_is_told_by_its_head(tmp_path):
    # a Windows editor's copy of another switch's CONFIG_DB (a UTF-8 BOM, which read_text drops) over the file limit
    # beside config_db.json: its head was sniffed with the BOM before the `{`, no sniff knew it, and the switch was left
    # out without a word (1 device checked); it is named too large, as the same file without the mark is
    folder = tmp_path / "leaf1"
    folder.mkdir()
    shutil.copy(SONIC, folder / "config_db.json")
    other = json.loads(SONIC.read_text(encoding="utf-8"))
    other["DEVICE_METADATA"]["localhost"]["hostname"] = "leaf7"
    other["PORT"]["Ethernet0"]["description"] = "x" * 2**20
    (folder / "leaf7.json").write_text("\ufeff" + json.dumps(other, indent=4), encoding="utf-8")
    ran = losslessd("lint", "-f", "json", "--max-file-mb", "1", str(tmp_path))
    said = [f["location"]["file"] for f in json.loads(ran.stdout)["findings"] if f["code"] == "SYS001"]
    assert [s.rsplit("/", 1)[1] for s in said] == ["leaf7.json"], said
    assert ran.returncode == EXIT_FINDINGS


def test_unreadable_file_in_a_device_folder_is_named(tmp_path):
    # a file beside config_db.json that cannot be read (here not text) is named, not taken for a companion
    folder = tmp_path / "leaf1"
    folder.mkdir()
    shutil.copy(SONIC, folder / "config_db.json")
    (folder / "spine1.cfg.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)))
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    said = [f["location"]["file"] for f in json.loads(ran.stdout)["findings"] if f["code"] == "SYS001"]
    assert any(s.endswith("spine1.cfg.gz") for s in said), said


def test_two_captures_joined_into_one_file_are_named_at_the_second(tmp_path):
    # `cat gpu01.capture gpu02.capture > gpus.capture`: was "malformed marker line '#% losslessd capture 1'"
    first = (FABRIC / "gpu01.capture").read_text(encoding="utf-8")
    joined = tmp_path / "gpus.capture"
    joined.write_text(first + (FABRIC / "gpu02.capture").read_text(encoding="utf-8"))
    ran = losslessd("lint", str(joined))
    assert ran.returncode == EXIT_INPUT
    line = first.count("\n") + 1
    assert f"{joined}:{line}: a second capture starts here" in ran.stderr, ran.stderr


def _coded(report: dict, code: str) -> list[str]:
    return sorted(f["location"]["file"].rsplit("/", 2)[-1] if "backup/" not in f["location"]["file"]
                  else "backup/" + f["location"]["file"].rsplit("/", 1)[1]
                  for f in report["findings"] if f["code"] == code)


def test_a_folder_of_copies_below_a_device_folder_is_no_second_device(tmp_path):
    # an /etc/sonic copy holding backup/config_db.json (a full copy taken before an edit) was read as a second switch
    # leaf1, a SYS001 error, exit 1; now it is named as a backup of config_db.json, not read
    folder = tmp_path / "sonic"
    (folder / "backup").mkdir(parents=True)
    (folder / "archive").mkdir()
    shutil.copy(SONIC, folder / "config_db.json")
    shutil.copy(SONIC, folder / "backup" / "config_db.json")
    shutil.copy(SONIC, folder / "archive" / "config_db.json.2024-05-01")
    shutil.copy(EOS, folder / "backup" / "running.cfg")  # (no copy of the device's own files: a device)
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    report = json.loads(ran.stdout)
    assert sorted(_devices(ran.stdout)) == ["leaf1", "roce-leaf1"], ran.stdout[-2000:]
    assert not _coded(report, "SYS001"), report["findings"]
    assert _coded(report, "SYS004").count("backup/config_db.json") == 1
    assert sum("config_db.json.2024-05-01" in f for f in _coded(report, "SYS004")) == 1


def test_backups_beside_a_device_file_are_named_not_read_as_devices(tmp_path):
    # `cp sw1.cfg sw1.cfg.bak` in a fabric folder: a second device roce-leaf1, SYS001, exit 1 on a clean fabric
    for name in ("sw1.cfg", "sw1.cfg.bak", "sw1.cfg~", "sw1.cfg.orig", "sw1-2026-12-04.cfg", "sw1.cfg.20261204T0930"):
        shutil.copy(EOS, tmp_path / name)
    (tmp_path / "backup").mkdir()
    shutil.copy(EOS, tmp_path / "backup" / "sw1.cfg")
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    report = json.loads(ran.stdout)
    assert _devices(ran.stdout) == ["roce-leaf1"]
    assert not _coded(report, "SYS001"), report["findings"]
    assert len(_coded(report, "SYS004")) == 6, report["findings"]
    assert report["devices"][0]["files"] == [str(tmp_path / "sw1.cfg")]


def test_a_backup_name_without_its_live_file_is_a_device(tmp_path):
    # never hide a device behind its name: `sw2.cfg.bak` alone may be the only copy there is; `leaf-1.cfg` beside
    # `leaf.cfg` is another switch (a number alone is no backup tail before the suffix)
    eos = EOS.read_text(encoding="utf-8")
    (tmp_path / "sw2.cfg.bak").write_text(eos.replace("roce-leaf1", "sw2"))
    (tmp_path / "leaf.cfg").write_text(eos.replace("roce-leaf1", "leaf"))
    (tmp_path / "leaf-1.cfg").write_text(eos.replace("roce-leaf1", "leaf-1"))
    (tmp_path / "backup").mkdir()
    (tmp_path / "backup" / "sw3.cfg").write_text(eos.replace("roce-leaf1", "sw3"))
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    assert sorted(_devices(ran.stdout)) == ["leaf", "leaf-1", "sw2", "sw3"], ran.stdout[-2000:]
    assert not _coded(json.loads(ran.stdout), "SYS004")


@pytest.mark.parametrize("copy", ["backup/spine9.cfg", "old/2026/spine9.cfg", "spine9.cfg.bak",
                                  "spine9-2026-12-04.cfg"])
@pytest.mark.parametrize("live", ["aa.cfg", "zz.cfg"])  # met before the copy in the walk, and after it
@pytest.mark.parametrize("same", [True, False], ids=["byte-equal", "live-changed"])
def test_a_backup_under_another_name_never_hides_the_live_device(tmp_path, copy, live, same):
    # `backup/spine9.cfg`, a copy of spine1.cfg kept under another name, is the same switch by its host name; walked
    # first (`backup/` before `zz.cfg`), it was linted and the LIVE file skipped as the duplicate (SYS001)
    eos = EOS.read_text(encoding="utf-8")
    (tmp_path / live).write_text(eos if same else eos.replace("hostname roce-leaf1", "hostname roce-leaf1\n! live"))
    (tmp_path / copy).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / copy).write_text(eos)
    for jobs in ("1", "2"):
        ran = losslessd("lint", "-f", "json", "--jobs", jobs, str(tmp_path))
        report = json.loads(ran.stdout)
        assert [d["files"] for d in report["devices"]] == [[str(tmp_path / live)]], report["devices"]
        said = [f for f in report["findings"] if f["code"] == "SYS001"]
        assert [f["location"]["file"] for f in said] == [str(tmp_path / copy)], said
        assert "it is a backup copy" in said[0]["message"] and str(tmp_path / live) in said[0]["message"]


def test_a_file_named_by_its_management_address_is_no_backup_copy(tmp_path):
    # `10.0.0.1` (a fleet pulled by address) read as a logrotate copy (`.1` tails cut down to `10`): beside a file of
    # the same host name it was called "a backup copy" and the other file linted; neither is a copy of the other
    eos = EOS.read_text(encoding="utf-8")
    for name in ("10.0.0.1", "zz.cfg"):
        (tmp_path / name).write_text(eos)
    ran = losslessd("lint", "-f", "json", str(tmp_path))
    report = json.loads(ran.stdout)
    assert [d["files"] for d in report["devices"]] == [[str(tmp_path / "10.0.0.1")]], report["devices"]
    said = [f["message"] for f in report["findings"] if f["code"] == "SYS001"]
    assert len(said) == 1 and "backup copy" not in said[0] and "give each device its own hostname" in said[0], said
    (tmp_path / "10.0.0.1.1").write_text(eos)  # (logrotate's copy of an address-named file is still a copy)
    report = json.loads(losslessd("lint", "-f", "json", str(tmp_path)).stdout)
    assert sum("10.0.0.1.1" in f["message"] or f["location"]["file"].endswith("10.0.0.1.1")
               for f in report["findings"] if f["code"] in ("SYS001", "SYS004")) == 1, report["findings"]


def test_two_live_files_of_one_host_name_keep_the_first(tmp_path):
    # neither is a copy of the other (the linted folder is `backup/` itself): the walk's first is read, as before
    (tmp_path / "backup").mkdir()
    shutil.copy(EOS, tmp_path / "backup" / "a.cfg")
    shutil.copy(EOS, tmp_path / "backup" / "b.cfg")
    ran = losslessd("lint", "-f", "json", str(tmp_path / "backup"))
    report = json.loads(ran.stdout)
    assert [d["files"] for d in report["devices"]] == [[str(tmp_path / "backup" / "a.cfg")]]
    said = [f["message"] for f in report["findings"] if f["code"] == "SYS001"]
    assert len(said) == 1 and "give each device its own hostname" in said[0], said


def test_a_linked_folder_of_copies_is_walked_as_any_link(tmp_path):
    # `backup` linked out of the linted folders: its files are no backups taken (they were named from /), the link
    # is refused as any link to a folder out of the linted ones
    fabric = tmp_path / "fabric"
    fabric.mkdir()
    shutil.copy(EOS, fabric / "passwd")
    (fabric / "backup").symlink_to("/etc")
    ran = losslessd("lint", "-f", "json", str(fabric))
    report = json.loads(ran.stdout)
    assert _devices(ran.stdout) == ["roce-leaf1"]
    assert not _coded(report, "SYS004"), report["findings"]
    assert any("points to a folder out of the linted folders" in f["message"] for f in report["findings"])


def test_backups_named_on_the_command_line_are_named_as_the_walk_names_them(tmp_path):
    # `lint fabric/*` names each file and folder: sw1.cfg.bak and backup/ were read as second devices (SYS001) where
    # `lint fabric` named them as backups; another device in backup/ is still read
    for name in ("sw1.cfg", "sw1.cfg.bak"):
        shutil.copy(EOS, tmp_path / name)
    (tmp_path / "backup").mkdir()
    shutil.copy(EOS, tmp_path / "backup" / "sw1.cfg")
    eos = EOS.read_text(encoding="utf-8")
    (tmp_path / "backup" / "sw9.cfg").write_text(eos.replace("roce-leaf1", "sw9"))
    ran = losslessd("lint", "-f", "json", *sorted(str(p) for p in tmp_path.iterdir()))
    report = json.loads(ran.stdout)
    assert sorted(_devices(ran.stdout)) == ["roce-leaf1", "sw9"]
    assert not _coded(report, "SYS001"), report["findings"]
    assert len(_coded(report, "SYS004")) == 2, report["findings"]


def test_a_folder_of_copies_alone_named_on_the_command_line_is_not_nothing_readable(tmp_path):
    # `lint fabric/*` where backup/ holds only a copy of sw1.cfg: its copy is named with sw1 (SYS004), and backup/ was
    # also said to be "nothing readable" (SYS001, exit 1) where `lint fabric` exits 0
    shutil.copy(EOS, tmp_path / "sw1.cfg")
    (tmp_path / "backup").mkdir()
    shutil.copy(EOS, tmp_path / "backup" / "sw1.cfg")
    whole = losslessd("lint", "-f", "json", str(tmp_path))
    named = losslessd("lint", "-f", "json", *sorted(str(p) for p in tmp_path.iterdir()))
    assert named.returncode == whole.returncode, named.stdout[-2000:]
    report = json.loads(named.stdout)
    assert not _coded(report, "SYS001"), report["findings"]
    assert _coded(report, "SYS004") == ["backup/sw1.cfg"]


def test_copies_of_files_that_are_no_device_are_left_out_as_they_are(tmp_path):
    # `cp topology.yaml topology.yaml.bak` (or an editor's `README.md~`) in a fabric folder: the copy was sniffed as a
    # device, a SYS001 "cannot tell which platform wrote this file", exit 1 on a clean fabric; named or walked alike
    shutil.copy(EOS, tmp_path / "sw1.cfg")
    for name in ("topology.yaml.bak", "README.md~", "policy.yaml.orig", "notes.md.2026-12-04"):
        (tmp_path / name).write_text("# kept by hand\n", encoding="utf-8")
    for args in ([str(tmp_path)], sorted(str(p) for p in tmp_path.iterdir())):
        ran = losslessd("lint", "-f", "json", *args)
        report = json.loads(ran.stdout)
        assert _devices(ran.stdout) == ["roce-leaf1"]
        assert not _coded(report, "SYS001"), report["findings"]
    alone = losslessd("lint", str(tmp_path / "topology.yaml.bak"))  # (named alone: said why it is not read, exit 2)
    assert alone.returncode == EXIT_INPUT and "is not taken for a device config" in alone.stdout + alone.stderr


def test_a_group_files_names_below_its_first_are_os_path_relpaths():
    # parse.backups names a group's files below its first one's folder by cutting the walk's prefix where the rest is
    # a clean path (os.path.relpath cost 2.5 us of CPU a file); every other form goes to relpath
    import os
    import random

    from losslessd.parse import _below

    rng = random.Random(38)
    parts = ["", ".", "..", "fab", "fab/", "./fab", "fab//x", "/abs/fab", "backup", "sw1.cfg", "sw1.cfg.bak",
             "backup/sw1.cfg", "./backup/sw1.cfg", "fab/backup/../sw1.cfg", "/", "//", ".hidden", "..x"]
    for _ in range(5000):
        files = ["/".join(p for p in rng.sample(parts, rng.randint(1, 3)) if p) or "sw1.cfg" for _ in range(3)]
        files[1] = os.path.join(os.path.dirname(files[0]), *rng.sample(parts, 2))
        first = os.path.dirname(files[0])
        assert [_below(f, os.path.join(first, "")) for f in files] == [os.path.relpath(f, first) for f in files], files


def test_copies_of_device_folders_in_a_folder_of_copies_are_named_not_read(tmp_path):
    """`backup/leaf1/config_db.json` beside `leaf1/config_db.json` (a fleet's folder of copies holding whole device
    folders) was walked as a device: a second leaf1, SYS001, and the copy read in place of the live folder. Now each
    copied file is named with its device (SYS004), by `lint fabric` and `lint fabric/*` alike; a copy holding a file
    its live folder lacks is no copy of it (read, its duplicate name said), nor is a copied folder with no live one."""
    (tmp_path / "leaf1").mkdir()
    shutil.copy(SONIC, tmp_path / "leaf1" / "config_db.json")
    shutil.copy(EOS, tmp_path / "sw1.cfg")
    (tmp_path / "backup" / "leaf1").mkdir(parents=True)
    shutil.copy(SONIC, tmp_path / "backup" / "leaf1" / "config_db.json")
    shutil.copy(EOS, tmp_path / "backup" / "sw1.cfg")
    for ran in (losslessd("lint", "-f", "json", str(tmp_path)),
                losslessd("lint", "-f", "json", *sorted(str(p) for p in tmp_path.iterdir()))):
        report = json.loads(ran.stdout)
        assert sorted(_devices(ran.stdout)) == ["leaf1", "roce-leaf1"], ran.stdout[-2000:]
        assert not _coded(report, "SYS001"), report["findings"]
        assert sorted(f["location"]["file"] for f in report["findings"] if f["code"] == "SYS004") == [
            str(tmp_path / "backup" / "leaf1" / "config_db.json"), str(tmp_path / "backup" / "sw1.cfg")]
        leaf1 = next(d for d in report["devices"] if d["name"] == "leaf1")
        assert leaf1["files"] == [str(tmp_path / "leaf1" / "config_db.json")]
    shutil.copy(SONIC, tmp_path / "backup" / "leaf1" / "qos.json")  # (not in leaf1/: no copy of it)
    report = json.loads(losslessd("lint", "-f", "json", str(tmp_path)).stdout)
    assert any("device name 'leaf1' also comes from" in f["message"] for f in report["findings"])


def test_a_link_loop_and_a_dangling_link_among_devices_are_each_said_for_what_they_are(tmp_path):
    # round 18: each link of a loop was "a symbolic link to loop2, which is not there", loop2 beside it; the other
    # devices are linted
    fabric = tmp_path / "fabric"
    shutil.copytree(FABRIC, fabric)
    (fabric / "loop1.cfg").symlink_to("loop2.cfg")
    (fabric / "loop2.cfg").symlink_to("loop1.cfg")
    (fabric / "gone.cfg").symlink_to("deleted.cfg")
    ran = losslessd("lint", "-f", "json", str(fabric))
    assert ran.returncode == EXIT_FINDINGS, ran.stderr
    assert len(_devices(ran.stdout)) == 8
    said = {f["location"]["file"].rsplit("/", 1)[-1]: f["message"] for f in json.loads(ran.stdout)["findings"]
            if f["code"] == "SYS001"}
    assert said["loop1.cfg"] == ("cannot read file: symbolic link loop (a link that points back at itself) "
                                 f"({fabric / 'loop1.cfg'} is a symbolic link to loop2.cfg)")
    assert said["gone.cfg"].endswith(f"({fabric / 'gone.cfg'} is a symbolic link to deleted.cfg, which is not there)")


def test_a_file_written_while_it_is_read_is_refused_not_read_half(tmp_path):
    """A config truncated under the read (a copy or an editor's save in place) read as a whole config cut at a line
    (round 20). The read's two fstats, taken around a real truncation, name the file and both sizes; /proc's files,
    of no size the kernel knows, are still read."""
    path = tmp_path / "leaf1.cfg"
    shutil.copy(ROOT / "examples" / "fabric" / "spine1.cfg", path)
    fd = os.open(path, os.O_RDONLY)
    try:
        before = os.fstat(fd)
        os.truncate(path, 100)
        with pytest.raises(InputError) as exc:
            _unchanged(fd, before, os.pread(fd, before.st_size, 0), str(path), "file")
    finally:
        os.close(fd)
    assert exc.value.file == str(path)
    assert f"changed while it was read ({before.st_size:,} bytes as the read began, 100 read, 100 as it ended)" in str(
        exc.value)
    assert read_bytes(path) == path.read_bytes()
    assert read_bytes("/proc/self/status").startswith(b"Name:")
    # ... and a writer rewriting the file in place (4 MB in 1 MB writes) beside reads that run until one meets a
    # rewrite (5 s at most): with no check each returned the half it found (1,166 of 355,000 reads in 3.5 s)
    data = (ROOT / "examples" / "fabric" / "spine1.cfg").read_bytes() * 2000
    path.write_bytes(data)
    stop = threading.Event()

    def rewrite() -> None:
        while not stop.is_set():
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
            for at in range(0, len(data), 1 << 20):
                os.write(fd, data[at:at + (1 << 20)])
            os.close(fd)

    writer = threading.Thread(target=rewrite)
    writer.start()
    refused, end = None, time.monotonic() + 5
    try:
        while refused is None and time.monotonic() < end:
            try:
                read_bytes(path)
            except InputError as error:
                refused = error
    finally:
        stop.set()
        writer.join()
    assert refused is not None and "changed while it was read" in str(refused)


def test_a_file_of_nul_bytes_alone_is_named_as_never_written(tmp_path):
    """A sparse file's hole or a copy a crash left zeroed (round 20) was "cannot tell which platform wrote this file"
    and the list of every platform: now named for what it holds, exit 2; NULs inside a config stay a SYS002."""
    sparse = tmp_path / "leaf1.cfg"
    with open(sparse, "wb") as f:
        f.truncate(1 << 20)
    ran = losslessd("lint", str(sparse))
    assert ran.returncode == EXIT_INPUT
    assert "leaf1.cfg: the file holds only NUL bytes (1,048,576): space allocated and never written" in ran.stderr
    assert "cannot tell which platform" not in ran.stderr + ran.stdout
    # ... with --format too (each reader named its own syntax: "invalid JSON", "not an Arista EOS running-config")
    for fmt in ("sonic", "arista_eos"):
        ran = losslessd("lint", "--format", fmt, str(sparse))
        assert ran.returncode == EXIT_INPUT and "leaf1.cfg: the file holds only NUL bytes (1,048,576)" in ran.stderr


def test_a_file_only_touched_while_it_is_read_is_read_and_one_rewritten_to_its_length_is_refused(tmp_path):
    """A backup tool's touch (the modification time alone moves) beside reads refused nearly every read as "changed"
    though no byte changed: the file is read once more and the same bytes are taken. A rewrite of the same length
    (the time moved, the bytes differ) is still refused."""
    path = tmp_path / "leaf1.cfg"
    data = (ROOT / "examples" / "fabric" / "spine1.cfg").read_bytes() * 2000  # (4 MB: reads long enough to meet one)
    path.write_bytes(data)
    stop = threading.Event()

    def touch() -> None:
        stamp = time.time_ns()
        while not stop.is_set():
            stamp += 1_000_000
            os.utime(path, ns=(stamp, stamp))

    toucher = threading.Thread(target=touch)
    toucher.start()
    try:
        reads = [read_bytes(path) for _ in range(50)]
    finally:
        stop.set()
        toucher.join()
    assert all(read == data for read in reads)
    fd = os.open(path, os.O_RDONLY)
    try:
        before = os.fstat(fd)
        with open(path, "r+b") as same_length:
            same_length.write(b"X")
        with pytest.raises(InputError, match=r"changed while it was read \(its bytes differ when read again\)"):
            _unchanged(fd, before, data, str(path), "file")
    finally:
        os.close(fd)


def test_a_kernel_file_of_a_nominal_size_is_read():
    """/sys's files say 4,096 bytes and hold a few: "changed while it was read (4,096 bytes as the read began,
    4,096 as it ended)" refused every one (sysfs(5): a file is one value, its size a page)."""
    if not os.path.exists("/sys/class/net/lo/mtu"):
        pytest.skip("no /sys/class/net/lo/mtu (not Linux, or no sysfs mounted)")
    with open("/sys/class/net/lo/mtu", "rb") as sysfs:
        assert read_bytes("/sys/class/net/lo/mtu") == sysfs.read()


@pytest.mark.parametrize("leave_out", [["--select", "PFC"], ["--ignore", "SYS001"], ["--baseline"]])
def test_an_input_not_read_is_never_clean_when_its_finding_is_left_out_of_the_report(tmp_path, leave_out):
    """Session 42 (round 22): an empty file beside a clean switch is a SYS001 error (exit 1); with --select PFC, or a
    baseline taken while it was empty (which then accepted any later reason it could not be read: the fingerprint of
    SYS001 is its file), the run was 0, clean, the file never checked and said only as "1 input unread"."""
    clean = tmp_path / "fabric"
    clean.mkdir()
    shutil.copy(ROOT / "examples" / "clos" / "leaf1.cfg", clean / "leaf1.cfg")
    (clean / "leaf2.cfg").write_bytes(b"")
    if leave_out == ["--baseline"]:
        report = tmp_path / "accepted.json"
        assert losslessd("lint", "-f", "json", "-o", report, clean).returncode == EXIT_FINDINGS
        (clean / "leaf2.cfg").write_bytes(b"\0" * 64)  # (later: another reason, the same fingerprint)
        leave_out = ["--baseline", str(report)]
    ran = losslessd("lint", "--select", "PFC,SYS", *leave_out, clean) if leave_out[0] == "--ignore" else \
        losslessd("lint", *leave_out, clean)
    assert ran.returncode == EXIT_FINDINGS, (ran.stdout, ran.stderr)
    assert f"{clean / 'leaf2.cfg'}: not read (1 input unread;" in ran.stderr
    assert "an input not read is not clean" in ran.stderr
    if leave_out[0] == "--select":  # SARIF says so as of a run that checked nothing; with its SYS001 shown, not
        sarif = json.loads(losslessd("lint", "-f", "sarif", *leave_out, clean).stdout)["runs"][0]["invocations"][0]
        assert not sarif["executionSuccessful"] and "not read" in sarif["toolExecutionNotifications"][0]["message"][
            "text"]
        whole = losslessd("lint", "-f", "sarif", clean)
        assert json.loads(whole.stdout)["runs"][0]["invocations"][0]["executionSuccessful"] and not whole.stderr


def test_a_fabric_whose_every_input_is_read_is_still_clean_under_select():
    ran = losslessd("lint", "--select", "PFC", ROOT / "examples" / "clos")
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""
