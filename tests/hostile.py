"""A fixed corpus of hostile and broken inputs for every CLI entry that reads input, and a harness that
runs them (issue 11). Each case builds its input small, at run time, in a folder of its own (a sparse
file stands for a large one; nothing big is stored), and says which exit codes the documented
behaviour allows and what the message must name.

    python -m tests.hostile [--only NAME] [--json]      run every case in this process

The harness runs the cases in one process, through the real CLI entry (``losslessd.cli.main.main``),
under an address-space limit (MEMORY_LIMIT_BYTES): a case that tries to read /dev/zero or expand a
YAML alias bomb fails with MemoryError instead of taking the machine. A case that blocks (a FIFO opened
for reading) is cut by an alarm after HANG_S and reported as hung; that is a safety net for a
regression, not a measure of speed. tests/test_hostile.py asserts on the outcomes: no traceback, no
hang, no internal error, the documented exit code, and the limit or file:line the message names.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import resource
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FABRIC = ROOT / "examples" / "fabric"
MEMORY_LIMIT_BYTES = 3 * 1024**3  # address space of the harness process (Python + imports take ~1 GB of it)
# A case still running after this long is reported as hung (a blocked read never returns). Wall clock, so it
# must leave room for a loaded machine: the 2,000,000-line cases took up to 58 s with 8 processes on 2 cores.
HANG_S = int(os.environ.get("LOSSLESSD_HOSTILE_HANG_S", "180"))
USAGE = 2  # exit code of unusable input (README "Exit codes")


@dataclass
class Case:
    name: str
    build: Callable[[Path], list[str]]  # writes its inputs under the folder given, returns the CLI arguments
    exits: tuple[int, ...] = (USAGE,)  # documented outcomes
    says: tuple[str, ...] = ()  # substrings the output must hold (file:line, the limit, the reason)
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Outcome:
    name: str
    exit: int | None
    output: str
    traceback: bool  # an exception escaped the CLI, or the CLI printed a traceback
    hung: bool
    memory_error: bool
    seconds: float
    ok: bool = False  # exit code documented and every expected phrase present, no traceback/hang
    problems: list[str] = field(default_factory=list)


# ---- building blocks ---------------------------------------------------------------------------------------
def _w(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _socket(path: Path) -> Path:
    """A UNIX socket's file at ``path`` (open(2) answers ENXIO for it, as for a FIFO no process reads)."""
    import socket

    path.parent.mkdir(parents=True, exist_ok=True)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
    return path


def _sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk (and no time) to make."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def _fabric(tmp: Path) -> Path:
    """A one-device fabric folder (leaf1's SONiC config) to put hostile things next to."""
    folder = tmp / "fabric"
    shutil.copytree(FABRIC / "leaf1", folder / "leaf1")
    return folder


def hostile_fleet(tmp: Path) -> Path:
    """The example fabric beside what the limits refuse (losslessd/limits.py): a FIFO, a file above a 1 MiB
    limit, a symbolic link loop, a link to a file deleted after it was listed, a config_db.json that is a folder, a
    switch of more ports than any has, and a folder with nothing readable in it (for a lint in worker processes
    against one in this process)."""
    folder = tmp / "fleet"
    shutil.copytree(FABRIC, folder)
    _fifo(folder / "fifo.cfg")
    (folder / "deleted.cfg").symlink_to("deleted-meanwhile.cfg")
    _sparse(folder / "big.cfg", 2 * 1024 * 1024)
    _symlink_loop(folder)  # folder/loop
    (folder / "odd" / "config_db.json").mkdir(parents=True)
    _w(folder / "huge" / "config_db.json", json.dumps({"PORT": {f"Ethernet{i}": {} for i in range(17_000)}}))
    (folder / "empty").mkdir()
    return folder


def _empty_files(folder: Path, n: int) -> Path:
    for i in range(n):
        (folder / f"e{i}.cfg").touch()
    return folder


def _deep_block(depth: int, leaf: str = "x") -> str:
    return "".join(f"{' ' * i}k{i}:\n" for i in range(depth)) + " " * depth + leaf + "\n"


def _deep_flow(depth: int) -> str:
    return "[" * depth + "]" * depth + "\n"


def _laughs(levels: int = 9, width: int = 9, key: str = "links") -> str:
    """The YAML billion laughs: each level lists ``width`` aliases of the level before (width^levels leaves)."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    lines.append(f"{key}: *a{levels - 1}")
    return "\n".join(lines) + "\n"


BIG_DIGITS = "9" * 5000  # above CPython's 4,300-digit int/str conversion limit
POLICY_OK = "name: hostile\nextends: roce-dscp26\n"
SETTINGS = "inventory: inventory.yaml\nknown_hosts: known_hosts\nhistory: {{path: h.db}}\n{extra}"
INVENTORY = """\
defaults:
  username: admin
  data: {{credentials: {{password_env: HOSTILE_PW}}}}
hosts:
  {name}:
    hostname: 127.0.0.1
    platform: sonic
"""
# A valid inventory whose devices are on TEST-NET-1 (RFC 5737: never routed), for fuzzing `pull` and the daemon.
TEST_NET_INVENTORY = """\
defaults:
  username: admin
  data: {credentials: {password_env: HOSTILE_PW}}
groups:
  switches: {platform: sonic, data: {snmp: {version: 2c, community_env: HOSTILE_PW}}}
hosts:
  leaf1: {hostname: 192.0.2.1, groups: [switches]}
  spine1: {hostname: 192.0.2.2, platform: eos, port: 2222}
"""


_NO_PORT_SONIC = '{"DEVICE_METADATA": {"localhost": {"hostname": "sw1"}}}\n'


def _lint(*paths: Path | str, policy: str | None = None, extra: list[str] = ()) -> list[str]:
    return ["lint", *map(str, paths), *(["--policy", policy] if policy else []), *extra]


def _policy_case(text: str | bytes) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        return ["policy", "check", str(_w(tmp / "p.yaml", text))]
    return build


def _lint_policy_case(text: str) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        return _lint(_fabric(tmp), policy=str(_w(tmp / "p.yaml", text)))
    return build


def _topology_case(text: str | Callable[[Path], str]) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        folder = _fabric(tmp)
        _w(folder / "topology.yaml", text(folder) if callable(text) else text)
        return _lint(folder)
    return build


def _inventory_case(text: str | bytes, name: str = "inv.yaml") -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        _w(tmp / "known_hosts", "")
        return ["pull", "-i", str(_w(tmp / name, text)), "-o", str(tmp / "out"), "--known-hosts",
                str(tmp / "known_hosts")]
    return build


def _pull_from(path: Callable[[Path], Path]) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        _w(tmp / "known_hosts", "")
        return ["pull", "-i", str(path(tmp)), "-o", str(tmp / "out"), "--known-hosts", str(tmp / "known_hosts")]
    return build


def _settings_case(extra: str = "", inventory: str | None = None, settings: str | None = None,
                   special: Callable[[Path], None] | None = None) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        _w(tmp / "known_hosts", "")
        if inventory is not None:
            _w(tmp / "inventory.yaml", inventory)
        else:
            _w(tmp / "inventory.yaml", INVENTORY.format(name="leaf1"))
        if special:
            special(tmp)
        path = tmp / "losslessd.yaml"
        if not path.exists() and not path.is_symlink():
            _w(path, settings if settings is not None else SETTINGS.format(extra=extra))
        return ["daemon", "--config", str(path), "--check"]
    return build


def _manifest_case(text: str) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        snap = tmp / "snapshot"
        _w(snap / "manifest.json", text)
        shutil.copy(FABRIC / "spine1.cfg", snap)
        return _lint(snap)
    return build


def _config_db(text: str) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        folder = tmp / "fabric"
        _w(folder / "leaf9" / "config_db.json", text)
        shutil.copy(FABRIC / "spine1.cfg", folder)
        return _lint(folder)
    return build


def _sonic_ports(names: list[str]) -> str:
    return json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf9"}},
                       "PORT": {n: {"speed": "100000", "mtu": "9100", "admin_status": "up"} for n in names},
                       "PORT_QOS_MAP": {n: {"pfc_enable": "3"} for n in names}})


def _symlink_loop(tmp: Path) -> Path:
    (tmp / "loop").symlink_to(tmp / "loop")
    return tmp / "loop"


def _render_device(make: Callable[[Path], Path]) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        return ["render", "--platform", "sonic", "--device", str(make(tmp))]
    return build


def _fix(make: Callable[[Path], list[str]]) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        return ["fix", *make(tmp)[1:]]
    return build


def _over_limit(name: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        return _sparse(tmp / name, 600 * 1024 * 1024)  # above every default limit, below nothing real
    return make


# ---- the cases -------------------------------------------------------------------------------------------
OS9_MAP = "hostname sw\ndcb-map M\n priority-pgid 0 0 0 1 0 0 0 0\n"  # an OS9 DCB map, for the range flood


def cases() -> list[Case]:
    from losslessd import limits

    C = Case
    out = [
        # YAML nesting, integers and aliases in each YAML loader
        C("policy-deep-block", _policy_case(_deep_block(2000)), says=("p.yaml:", "nest")),
        C("policy-deep-flow", _policy_case(_deep_flow(100_000)), says=("p.yaml:", "nest")),
        C("policy-huge-int", _policy_case(f"name: x\nlossless:\n  priorities: [{BIG_DIGITS}]\n"), says=("p.yaml:3",)),
        # YAML 1.1's dates, octal and base-60 numbers are read as the text written, as YAML 1.2 reads them (the date
        # 2001-02-30 was a construction error; `026` the DSCP 22)
        C("policy-bad-date", _policy_case("name: x\ndescription: 2001-02-30\n"), exits=(0,), says=("2001-02-30",)),
        C("policy-octal-dscp", _policy_case("name: x\nextends: roce-dscp26\nlossless: {dscp: [026]}\n"),
          says=("p.yaml:3", "'026'", "octal")),
        C("policy-base60-time", _policy_case("name: x\nextends: roce-dscp26\nwatchdog:\n  detection_time_ms: "
                                             "{min: 1:40, max: 1000}\n"), says=("p.yaml:4", "'1:40'", "base 60")),
        C("policy-alias-bomb", _policy_case(_laughs(key="description")), says=("p.yaml:", "alias")),
        C("policy-recursive-alias", _policy_case("name: x\nroce_ports: &a {select: all, x: *a}\n"), says=("p.yaml:",)),
        C("policy-extends-chain", lambda t: ["policy", "check", str(_extends_chain(t, 2000))], says=("extends",)),
        C("policy-extends-cycle", lambda t: ["policy", "check", str(_extends_cycle(t))], says=("loop",)),
        C("policy-bad-regex", _policy_case("name: x\nroce_ports:\n  description_regex: 'gpu(['\n"),
          says=("p.yaml:3", "regular expression")),
        C("policy-bad-name-regex", _policy_case("name: x\nroce_ports:\n  name_regex: '*Ethernet'\n"), says=("p.yaml:3",)),
        C("lint-policy-bad-regex", _lint_policy_case("name: x\nroce_ports:\n  description_regex: 'gpu(['\n"),
          says=("p.yaml:3",)),
        C("policy-inverted-range", _policy_case("name: x\necn:\n  min_threshold_bytes: {min: 2000, max: 1000}\n"),
          says=("p.yaml:3", "min")),
        C("policy-duplicate-key", _policy_case("name: x\necn:\n  required: true\n  required: false\n"),
          says=("p.yaml:4", "duplicate")),
        C("policy-fifo", lambda t: ["policy", "check", str(_fifo(t / "p.yaml"))], says=("p.yaml", "regular file")),
        C("policy-dev-zero", lambda t: ["policy", "check", "/dev/zero"], says=("/dev/zero",)),
        # a UNIX socket's file: open(2) says ENXIO, which was "cannot read file: No such device or address" (round 18)
        C("policy-socket", lambda t: ["policy", "check", str(_socket(t / "p.yaml"))], says=("p.yaml",)),
        C("policy-folder", lambda t: ["policy", "check", str(_w(t / "p.yaml" / "x", "").parent)], says=("p.yaml",)),
        C("policy-symlink-loop", lambda t: ["policy", "check", str(_symlink_loop(t))], says=("loop",)),
        C("policy-not-utf8", _policy_case(b"name: x\ndescription: \xff\xfe\n"), says=("p.yaml:2", "UTF-8")),
        C("policy-utf16", _policy_case("name: x\n".encode("utf-16")), says=("p.yaml:1", "UTF-16")),
        C("policy-nul", _policy_case(b"name: x\x00\n"), says=("p.yaml:1",)),
        C("policy-huge-file", lambda t: ["policy", "check", str(_over_limit("p.yaml")(t))], says=("p.yaml", "limit")),
        # topology.yaml
        # one name in two Unicode spellings (composed, and `e` + U+0301 as macOS writes names): two tiers for one
        # device no one could tell apart (round 13)
        C("topology-key-in-two-spellings", _topology_case("tiers: {caf\u00e9: 2, cafe\u0301: 1}\nlinks: []\n"),
          says=("topology.yaml:1", "two Unicode spellings")),
        C("topology-deep-block", _topology_case(_deep_block(2000)), says=("topology.yaml:", "nest")),
        C("topology-deep-flow", _topology_case("links: " + _deep_flow(100_000)), says=("topology.yaml:", "nest")),
        C("topology-alias-bomb", _topology_case(_laughs()), says=("topology.yaml:", "alias")),
        C("topology-recursive-alias", _topology_case("links: &a [*a]\n"), says=("topology.yaml:",)),
        C("topology-huge-int", _topology_case(f"tiers: {{leaf1: {BIG_DIGITS}}}\n"), exits=(0, 1, 2),
          says=("topology.yaml:1",)),
        C("topology-lldp-dev-zero", _topology_case("lldp: {leaf1: /dev/zero}\n"), exits=(1, 2),
          says=("topology.yaml:1", "/dev/zero")),
        C("topology-routes-shadow", _topology_case("routes: {leaf1: ../../../../../../etc/shadow}\n"), exits=(1, 2),
          says=("topology.yaml:1", "outside")),
        C("topology-lldp-fifo", _topology_case(lambda f: (_fifo(f / "lldp.txt"), "lldp: {leaf1: lldp.txt}\n")[1]),
          exits=(1, 2), says=("lldp.txt", "regular file")),
        C("topology-fifo", lambda t: _lint(_fabric(t), extra=["--topology", str(_fifo(t / "topo.yaml"))]),
          says=("topo.yaml", "regular file")),
        C("topology-link-to-outside", _topology_case(lambda f: ((f / "lldp.txt").symlink_to("/etc/shadow"),
                                                                "lldp: {leaf1: lldp.txt}\n")[1]),
          exits=(1, 2), says=("topology.yaml:1", "outside")),
        # many entries, each line number counted from the file's start (quadratic: 100 s and 4 minutes before)
        C("topology-lldp-json-20000", _topology_case(lambda f: (_w(f / "lldp.json", _lldp_json(20_000)),
                                                                "lldp: {leaf1: lldp.json}\n")[1]), exits=(0, 1),
          says=("lldp.json:359987",)),
        # (P_Keys 0x0001-0x7ffe: a P_Key of 0 is generated, and past 0x7ffe OpenSM has none left and stops the file)
        C("lint-opensm-100000-partitions", lambda t: _lint(_w(t / "sm" / "partitions.conf", "".join(
            f"p{i}=0x{i % 0x7ffe + 1:x}, ipoib, sl=0 : ALL=full;\n" for i in range(100_000)) + "p=0x1 : ALL").parent,
            "--policy", "infiniband") if _w(t / "sm" / "opensm.conf", "sm_priority 14\n") else [], exits=(0, 1),
          says=("partitions.conf:100001",)),
        C("topology-duplicate-key", _topology_case("routing: updown\nrouting: routes\n"),
          says=("topology.yaml:2", "duplicate")),
        # device inputs and folders
        C("lint-empty-folder", lambda t: _lint(_w(t / "empty" / ".keep", "").parent), says=("nothing",)),
        C("lint-folder-only-fifo", lambda t: _lint(_fifo(t / "f" / "leaf1.cfg").parent), says=("leaf1.cfg",)),
        C("lint-config-db-is-folder", lambda t: _lint(_w(t / "leaf1" / "config_db.json" / "x", "").parent.parent),
          says=("config_db.json",)),
        C("lint-config-db-fifo", lambda t: _lint(_fifo(t / "leaf1" / "config_db.json").parent),
          says=("config_db.json", "regular file")),
        C("lint-dev-zero", lambda t: _lint("/dev/zero"), says=("/dev/zero",)),
        C("lint-fifo-path", lambda t: _lint(_fifo(t / "x.cfg")), says=("x.cfg",)),
        C("lint-socket-in-folder", lambda t: (_socket(_fabric(t) / "leaf2.cfg"), _lint(t / "fabric"))[1], exits=(1,),
          says=("leaf2.cfg",)),
        C("lint-symlink-loop", lambda t: _lint(_symlink_loop(t)), says=("loop",)),
        C("lint-symlink-loop-in-folder", lambda t: (_symlink_loop(_fabric(t)), _lint(t / "fabric"))[1], exits=(1,),
          says=("loop",)),
        # a name longer than the system takes (ENAMETOOLONG): Path.is_dir() raised it in Python 3.11 (exit 3)
        C("lint-name-too-long", lambda t: _lint(t / ("n" * 300)), says=("file name too long",)),
        C("lint-path-too-long", lambda t: _lint(t / ("d/" * 3000 + "x")), says=("file name too long",)),
        C("fix-name-too-long", _fix(lambda t: _lint(t / ("n" * 300))), says=("file name too long",)),
        C("render-device-name-too-long", _render_device(lambda t: t / ("n" * 300)), says=("file name too long",)),
        C("pull-name-too-long", _pull_from(lambda t: t / ("n" * 300)), says=("file name too long",)),
        C("lint-deep-folders", lambda t: _lint(_deep_folders(t / "deep", 1200)), exits=(0, 1), says=("leaf1",)),
        # a link to a folder out of the linted folder is not walked (a link to / walked the whole disk and lost every
        # device to a folder of /proc it could not list); a link to a file is read as the file it names (a system
        # file: no platform, SYS001, its text not shown); a sub-folder that cannot be listed is named, the rest read
        C("lint-links-out-of-folder", lambda t: (_links_out(_fabric(t)), _lint(t / "fabric"))[1], exits=(1,),
          says=("'root' points to a folder out of the linted folders (to /)", "pw.cfg", "cannot tell which platform",
                "1 device checked")),
        C("lint-folder-path-too-long", lambda t: (_long_path(_fabric(t)), _lint(t / "fabric"))[1], exits=(1,),
          says=("cannot read folder", "1 device checked")),
        # --output naming a file the lint read by another name than the command line's: the policy the policy extends,
        # a routes file the topology names (each was replaced by the report, exit 1; round 13)
        C("lint-output-over-extended-policy", lambda t: _lint(
            _fabric(t), policy=str(_w(t / "child.yaml", "name: child\nextends: parent.yaml\n")),
            extra=["-o", str(_w(t / "parent.yaml", "name: parent\nextends: roce-dscp26\n"))]),
          says=("parent.yaml", "a file this lint read")),
        C("lint-output-over-routes-file", lambda t: _lint(
            shutil.copytree(FABRIC, t / "fabric"), extra=["-o", str(t / "fabric" / "routes" / "leaf1.txt")]),
          says=("leaf1.txt", "a file this lint read")),
        # a report an earlier lint wrote into the folder linted, named again by -o: the walk leaves the report this
        # run writes out (it took it for a device, SYS001, then refused to replace a file it had read)
        C("lint-output-over-earlier-report", lambda t: _lint(
            _fabric(t), extra=["-o", str(_w(t / "fabric" / "report.json", '{"findings": []}'))]), exits=(1,)),
        # a capture cut in the middle of a line (a copy or a collection stopped): its last output read as if whole
        C("lint-capture-cut-short", lambda t: _lint(_w(t / "leaf2.capture", (FABRIC / "leaf2.capture").read_text(
            encoding="utf-8").rstrip("\n")[:-3])), exits=(1,), says=("leaf2.capture:", "cut short")),
        C("lint-folder-link-loops", lambda t: (_link_loops(_fabric(t)), _lint(t / "fabric"))[1], exits=(1,),
          says=("1 device checked",)),
        C("lint-too-many-ports", _config_db(_sonic_ports([f"Ethernet{i}" for i in range(17_000)])),
          exits=(1,), says=("17,000 ports", "16,384")),
        C("lint-too-many-interfaces", lambda t: _lint(_w(t / "sw.cfg", "hostname sw\n" + "".join(
            f"interface Ethernet{i}\n   mtu 9214\n" for i in range(17_000)))), says=("16,385 ports",)),
        C("lint-nxos-range-flood", lambda t: _lint(_w(t / "sw.cfg", "hostname sw\nsystem qos\n" + "".join(
            f"interface Ethernet1/1-1024\n  mtu 9216\n" for _ in range(1100)))), says=("sw.cfg:", "ports in all")),
        C("lint-os10-range-flood", lambda t: _lint(_w(t / "sw.cfg", "! Version 10.5.1.0\n! Last configuration change "
                                                                   "at Nov  29 10:00:03 2026\nhostname sw\n" + "".join(
            "interface range ethernet1/1/1-1/1/999\n mtu 9216\n" for _ in range(1100)))),
          says=("sw.cfg:", "ports in all")),
        C("lint-os9-range-flood", lambda t: _lint(_w(t / "sw.cfg", OS9_MAP + "".join(
            "interface range ten 0/1-999\n dcb-map M\n" for _ in range(1100)))), says=("sw.cfg:", "ports in all")),
        C("lint-onyx-range-flood", lambda t: _lint(_w(t / "sw.cfg", "no cli default prefix-modes enable\n" + "".join(
            "   interface ethernet 1/1-1/999 qos trust L3\n" for _ in range(1100)))), says=("sw.cfg:", "ports in all")),
        C("lint-onyx-too-many-ports", lambda t: _lint(_w(t / "sw.cfg", "no cli default prefix-modes enable\n" + "".join(
            f"   interface ethernet {s}/{p} qos trust L3\n" for s in range(1, 20) for p in range(1, 1000)))),
          says=("16,385 ports",)),
        C("lint-junos-range-flood", lambda t: _lint(_w(t / "sw.cfg", "set system host-name sw\n" + "".join(
            f"set interfaces interface-range r{i} member et-0/0/[0-4000]\n" for i in range(300)))),
          says=("sw.cfg:", "ports in all")),
        C("lint-junos-many-ranges", lambda t: _lint(_w(t / "sw.cfg", "set system host-name sw\n" + "".join(
            f"set interfaces interface-range r{i} member et-0/0/{i}\n" for i in range(1100)))),
          says=("sw.cfg:", "interface ranges")),
        C("fix-deep-indent", lambda t: ["fix", "--unsafe-fixes", str(_w(t / "spine1.cfg", _deep_indent()))],
          exits=(0, 1)),
        C("lint-huge-config-db", lambda t: _lint(_over_limit("leaf1/config_db.json")(t).parent),
          says=("config_db.json", "limit")),
        C("lint-deep-json", _config_db(_deep_flow(100_000)), exits=(1,), says=("config_db.json",)),
        C("lint-huge-json-int", _config_db('{"PORT": {"Ethernet0": {"mtu": ' + BIG_DIGITS + "}}}"), exits=(1,),
          says=("config_db.json",)),
        C("lint-port-5000-digits", _config_db(_sonic_ports(["Ethernet" + BIG_DIGITS, "Ethernet" + "8" * 5000,
                                                            "Ethernet4"])), exits=(0, 1)),
        C("lint-eos-port-5000-digits", lambda t: _lint(_w(t / "sw.cfg", _eos_ports())), exits=(0, 1)),
        C("lint-manifest-deep", _manifest_case(_deep_flow(100_000)), exits=(1,), says=("manifest.json",)),
        C("lint-manifest-fifo", lambda t: (_fifo(t / "s" / "manifest.json"),
                                           shutil.copy(FABRIC / "spine1.cfg", t / "s"), _lint(t / "s"))[2],
          exits=(1,), says=("manifest.json",)),
        C("lint-manifest-huge-int", _manifest_case('{"format": "losslessd-snapshot", "version": ' + BIG_DIGITS + "}"),
          exits=(1,), says=("manifest.json",)),
        C("lint-baseline-deep", lambda t: _lint(_fabric(t), extra=["--baseline", str(_w(t / "b.json",
                                                                                         _deep_flow(100_000)))]),
          says=("b.json",)),
        C("lint-baseline-huge-int", lambda t: _lint(_fabric(t), extra=["--baseline", str(_w(
            t / "b.json", '{"findings":\n [' + BIG_DIGITS + "]}"))]), says=("b.json:2", "5000 digits")),
        C("lint-baseline-dev-zero", lambda t: _lint(_fabric(t), extra=["--baseline", "/dev/zero"]), says=("/dev/zero",)),
        C("lint-baseline-fifo", lambda t: _lint(_fabric(t), extra=["--baseline", str(_fifo(t / "b.json"))]),
          says=("b.json",)),
        # inventories (`pull --inventory`)
        C("pull-dev-zero", _pull_from(lambda t: Path("/dev/zero")), says=("/dev/zero",)),
        C("pull-fifo", _pull_from(lambda t: _fifo(t / "inv.yaml")), says=("inv.yaml", "regular file")),
        C("pull-socket", _pull_from(lambda t: _socket(t / "inv.yaml")), says=("inv.yaml",)),
        C("pull-symlink-loop", _pull_from(_symlink_loop), says=("loop",)),
        C("pull-huge-file", _pull_from(_over_limit("inv.yaml")), says=("inv.yaml", "limit")),
        C("pull-deep-block", _inventory_case(_deep_block(2000)), says=("inv.yaml:", "nest")),
        C("pull-deep-flow", _inventory_case("hosts: " + _deep_flow(100_000)), says=("inv.yaml:", "nest")),
        C("pull-alias-bomb", _inventory_case(_laughs(key="hosts")), says=("inv.yaml:", "alias")),
        C("pull-huge-int", _inventory_case(INVENTORY.format(name="leaf1") + f"    port: {BIG_DIGITS}\n"),
          says=("inv.yaml:8",)),
        C("pull-big-yaml", _inventory_case("hosts:\n" + "".join(f"  h{i}: {{platform: sonic}}\n" for i in range(250_000))),
          says=("inv.yaml", "4 MiB")),
        C("lint-big-nvue-yaml", lambda t: _lint(_w(t / "sw.yaml", "- header:\n    nvue-api-version: nvue_v1\n- set:\n"
                                                   "    interface:\n" + "".join(f"      swp{i}: {{link: {{mtu: 9216}}}}\n"
                                                                              for i in range(150_000)))),
          says=("sw.yaml", "4 MiB")),
        C("pull-groups-null-list", _inventory_case(INVENTORY.format(name="leaf1") + "    groups: [[null]]\n"),
          says=("inv.yaml:8", "group")),
        C("pull-group-chain", _inventory_case(_group_chain(3000).replace("platform: sonic}", "port: 0}")),
          says=("inv.yaml:3004", "group g2999", "port")),
        C("pull-group-cycle", _inventory_case(_group_chain(3, cycle=True)), says=("inv.yaml:", "cycle")),
        C("pull-hosts-file-fifo", _pull_from(lambda t: (_fifo(t / "inv" / "hosts.yaml"), t / "inv")[1]),
          says=("hosts.yaml", "regular file")),
        C("pull-password-file-fifo", lambda t: _inventory_case(
            f"defaults:\n  username: admin\n  data: {{credentials: {{password_file: {_fifo(t / 'pw')}}}}}\n"
            "hosts:\n  leaf1: {hostname: 127.0.0.1, platform: sonic}\n")(t), says=("pw", "regular file")),
        C("pull-password-file-dev-zero", _inventory_case(
            "defaults:\n  username: admin\n  data: {credentials: {password_file: /dev/zero}}\n"
            "hosts:\n  leaf1: {hostname: 127.0.0.1, platform: sonic}\n"), says=("/dev/zero",)),
        # numbers on the command line no timer or score takes: inf (or 1e400) reached a worker thread's timer
        # (OverflowError traceback, then every device "failed"); nan and inf never amount to anything
        *[C(f"pull-timeout-{v}", lambda t, v=v: [*_inventory_case(INVENTORY.format(name="leaf1"))(t), "--timeout", v],
            says=("--timeout", why)) for v, why in (("inf", "finite"), ("1e400", "finite"), ("nan", "--timeout"),
                                                    ("1e300", "longer than any wait"))],
        *[C(f"{cmd[0]}-{opt[2:]}-{v}", lambda t, cmd=cmd, opt=opt, v=v: [*cmd, opt, v], says=(opt, "finite"))
          for cmd, opt in ((["tune", "-b", "true"], "--pause-weight"), (["tune", "-b", "true"], "--regression-pct"),
                           (["tune", "-b", "true"], "--timeout"), (["sim-bench"], "--noise-pct"),
                           (["sim-bench"], "--headroom-bytes")) for v in ("inf", "-inf")
          if not (v == "-inf" and opt != "--headroom-bytes")],
        C("pull-duplicate-host", _inventory_case(INVENTORY.format(name="leaf1") + "  leaf1:\n    platform: sonic\n"),
          says=("inv.yaml:8", "duplicate")),
        # hostile host names: refused before anything touches the file system (exit 2)
        *[C(f"pull-host-name-{label}", _inventory_case(INVENTORY.format(name=name)), says=("inv.yaml:5", "name"))
          for label, name in (("dotdot-slash", "'../escaped'"), ("absolute", "/tmp/x/y"), ("nul", '"a\\0b"'),
                              ("long", "h" * 5000), ("dot", "'.'"), ("dotdot", "'..'"), ("hidden", ".hidden"),
                              ("backslash", "'a\\b'"), ("newline", '"a\\nb"'))],
        # daemon settings (`daemon --check`)
        C("daemon-deep-block", _settings_case(settings=_deep_block(2000)), says=("losslessd.yaml:", "nest")),
        C("daemon-deep-flow", _settings_case(settings="poll: " + _deep_flow(100_000)), says=("losslessd.yaml:", "nest")),
        C("daemon-alias-bomb", _settings_case(settings=_laughs(key="inventory")), says=("losslessd.yaml:", "alias")),
        C("daemon-huge-int", _settings_case(f"poll: {{concurrency: {BIG_DIGITS}}}\n"), says=("losslessd.yaml:4",)),
        C("daemon-infinite-interval", _settings_case("poll: {snmp_interval_s: .inf}\n"), says=("losslessd.yaml:4",)),
        C("daemon-fifo", _settings_case(special=lambda t: _fifo(t / "losslessd.yaml")),
          says=("losslessd.yaml", "regular file")),
        C("daemon-symlink-loop", _settings_case(special=lambda t: (t / "losslessd.yaml").symlink_to(t / "losslessd.yaml")),
          says=("loop",)),
        C("daemon-inventory-fifo", _settings_case(special=lambda t: (_fifo(t / "inv2.yaml")),
                                                  settings=SETTINGS.format(extra="").replace("inventory.yaml",
                                                                                             "inv2.yaml")),
          says=("inv2.yaml", "regular file")),
        C("daemon-inventory-bomb", _settings_case(inventory=_laughs(key="hosts")), says=("inventory.yaml:", "alias")),
        C("daemon-policy-bad-regex", _settings_case("policy: p.yaml\n", special=lambda t: _w(
            t / "p.yaml", "name: x\nroce_ports: {name_regex: '(('}\n")), says=("p.yaml:2",)),
        C("daemon-duplicate-key", _settings_case(settings=SETTINGS.format(extra="policy: a\npolicy: b\n")),
          says=("losslessd.yaml:5", "duplicate")),
        # nothing checked is never clean (exit 2, not 0): a switch whose input shows no port, a rule selection of none
        C("lint-switch-of-no-port", lambda t: _lint(_w(t / "sw1.json", _NO_PORT_SONIC)), says=("nothing checked",)),
        C("lint-ignore-every-rule", lambda t: _lint(_fabric(t), extra=["--ignore", "ALL"]),
          says=("leaves no rule",)),
        C("fix-switch-of-no-port", _fix(lambda t: _lint(_w(t / "sw1.json", _NO_PORT_SONIC))),
          says=("nothing checked: 1 device read (sw1) from ", "sw1.json")),  # (fix prints no finding naming it)
        # render --device and fix read device files the same way
        C("render-device-dev-zero", _render_device(lambda t: Path("/dev/zero")), says=("/dev/zero",)),
        C("render-device-fifo", _render_device(lambda t: _fifo(t / "leaf1.json")), says=("leaf1.json", "regular file")),
        C("render-device-socket", _render_device(lambda t: _socket(t / "leaf1.json")), says=("leaf1.json",)),
        C("render-device-deep-json", _render_device(lambda t: _w(t / "leaf1.json", _deep_flow(100_000))),
          says=("leaf1.json",)),
        C("render-device-symlink-loop", _render_device(_symlink_loop), says=("loop",)),
        C("render-device-huge", _render_device(_over_limit("leaf1.json")), says=("leaf1.json", "limit")),
        C("fix-empty-folder", _fix(lambda t: _lint(_w(t / "empty" / ".keep", "").parent)), says=("nothing",)),
        C("fix-fifo-folder", _fix(lambda t: _lint(_fifo(t / "f" / "leaf1.cfg").parent)), says=("leaf1.cfg",)),
        C("fix-policy-bad-regex", _fix(_lint_policy_case("name: x\nroce_ports:\n  description_regex: '[z-a]'\n")),
          says=("p.yaml:3",)),
        C("fix-topology-bomb", _fix(_topology_case(_laughs())), says=("topology.yaml:", "alias")),
        # round 2 (tests/hostile_readers.py has the per-reader mutations)
        # leaf1's routes upside down: ECMP continuation lines under the wrong prefix make a routing loop whose hops
        # also reach the break, and the example path of a PTH finding went round it for ever (hung)
        C("lint-routes-loop-ecmp", lambda t: (_reversed_routes(_w(t / "x", "").parent / "fab"), _lint(t / "fab"))[1],
          exits=(1,), says=("PTH001",)),
        C("topology-dangling-link", lambda t: ((_fabric(t) / "topology.yaml").symlink_to("../gone.yaml"),
                                               _lint(t / "fabric"))[1],
          says=("topology.yaml is a symbolic link to ../gone.yaml, which is not there",)),
        C("render-device-dangling-link", _render_device(lambda t: ((t / "leaf1.json").symlink_to("gone"),
                                                                   t / "leaf1.json")[1]),
          says=("leaf1.json is a symbolic link to gone",)),
        C("lint-ibdiagnet-5000-digits", lambda t: _lint(_ibdiagnet(t, f"-I- Analyzing Fabric for Credit Loops "
                                                                      f"{BIG_DIGITS} SLs, 2 VLs used\n"),
                                                    "--policy", "infiniband"), exits=(0, 1)),
        # state files SQLite opens: a FIFO or a folder was "no history database here" / "no such tune database"
        C("events-db-fifo", lambda t: ["events", "--db", str(_fifo(t / "h.db"))], says=("h.db", "a FIFO")),
        C("history-db-char-device", lambda t: ["history", "--db", "/dev/zero", "--device", "a", "--port", "b"],
          says=("/dev/zero", "a character device")),
        C("tune-report-db-fifo", lambda t: ["tune", "report", "--db", str(_fifo(t / "t.db"))], says=("t.db", "a FIFO")),
        C("tune-report-db-folder", lambda t: ["tune", "report", "--db", str(_w(t / "t.db" / "x", "").parent)],
          says=("t.db", "a folder")),
        C("daemon-history-fifo", _settings_case(special=lambda t: _fifo(t / "h.db")), says=("h.db", "a FIFO")),
        # a 24 MiB line (under the 32 MiB limit): Junos' trailing-comment regex kept a backtracking entry per character
        # (130 bytes each: out of memory here, 6.7 GB for 50 MB)
        C("lint-junos-24mib-line", lambda t: _lint(_w(t / "sw.cfg", "set system host-name sw\nset interfaces et-0/0/0 "
                                                      "description " + "y" * (24 * 1024 * 1024) + "\n"),
                                                   "--format", "juniper_junos"), exits=(2,),
          says=("sw.cfg", "nothing checked")),
        C("policy-list-key", _policy_case("name: x\n? [a, b]\n: c\n"), says=("p.yaml:2", "plain name")),
        C("policy-python-tag", _policy_case("name: x\ndescription: !!python/object:os.system [ls]\n"),
          says=("p.yaml:2", "!!python/object:os.system is not read", "remove the tag")),
        C("policy-duplicate-anchor", _policy_case("name: x\ndescription: &a d\nroce_ports: &a {select: all}\n"),
          says=("p.yaml:3", "the anchor &a is defined twice (first at line 2): rename this one")),
        # round 3 (the code of sessions 24-26)
        # 5,000 nested `for` loops in a host script: Python's stack ran out (RecursionError, exit 3)
        C("lint-script-5000-nested-loops", _script("for a in x; do\n" * 5000 + _QOS + "done\n" * 5000),
          says=("setup.sh:66", "nest more than 64 deep")),
        C("lint-script-unclosed-loops", _script("for a in x; do\n" * 5000 + _QOS), says=("setup.sh:66",)),
        # a loop over 20,000 words whose body is a loop over them with nothing in it: 400 million empty rounds that no
        # command counted (80 s); each word a loop goes round now counts against the 100,000 commands (the inner body
        # a `:`: bash refuses an empty one)
        C("lint-script-empty-loops-multiply", _script(f"A=({_WORDS})\nfor a in \"${{A[@]}}\"; do\n"
                                                      f"for b in \"${{A[@]}}\"; do :\ndone\ndone\n" + _QOS),
          says=("setup.sh:4", "more than 100,000 commands")),
        # $A of 100,000 words listed 2,000 times: 200 million words in memory (MemoryError, exit 3); now the words are
        # counted as they are listed, and `$A$A...` in one word is refused past what a program can be given
        C("lint-script-variable-bomb", _script(f'A="{_WORDS}"\nfor a in ' + "$A " * 2000 + "; do\n" + _QOS + "done\n"),
          says=("setup.sh:3", "more than 100,000 commands")),
        # one 80 KB line of 8,000 `{1..1000}`: 8 million words expanded (16 s, 642 MB); now the file's brace words
        # are counted, refused past 100,000 with the line
        C("lint-script-brace-flood", _script("echo " + "{1..1000} " * 8000 + "\n" + _QOS),
          says=("setup.sh:2", "more than 100,000 words")),
        C("fix-script-word-bomb", _fix(_script("A=" + "x" * 5000 + "\nmlnx_qos -i eth0 --trust " + "$A" * 1000 + "\n")),
          says=("setup.sh:3", "MAX_ARG_STRLEN")),
        # 100,000 rows of an Onyx capture's `show roce` table: each row's line counted from the start (72 s);
        # the alarm of the harness is the net, the figure is in the report
        C("lint-onyx-show-roce-100000-rows", lambda t: _lint(_w(t / "onyx.txt", _ONYX_CAPTURE.read_text()
                                                                + "3    3    RoCE    WRR 50%\n" * 100_000),
                                                             "--format", "nvidia_onyx"), exits=(0, 1)),
        # 20,000 nested Junos blocks: whether a block is inactive was asked of every block around it, per line (3.7 s,
        # quadratic: 8 million levels fit the file limit)
        C("lint-junos-20000-nested-blocks", lambda t: _lint(_w(t / "sw.cfg", "system { host-name sw; }\n"
                                                            + "interfaces {\n" * 20_000 + "}\n" * 20_000),
                                                         "--format", "juniper_junos"),
          says=("sw.cfg:66", "nested deeper than 64 levels")),
        # a capture's time of 5,000-digit numbers was echoed whole, twice (40 KB of error)
        C("lint-capture-huge-time", lambda t: _lint(_w(t / "gpu.txt", "#% losslessd capture 1\n#% device: gpu\n"
                                                       f"#% platform: linux_mlx5\n#% collected: 2024-{BIG_DIGITS}Z\n"
                                                       "#% command: mlnx_qos -i eth0\nx\n")),
          says=("gpu.txt:4", "(5,006 characters) is not an ISO 8601 date")),
        # round 4 (session 27)
        # 9 BUFFER_PG keys naming 16,000 ports each with PGs 0-7 (1.8 MB): 1.15 million (port, PG) pairs; at the 32 MiB
        # limit such keys named 19 million and took 2 GB and 11 s before the port count was checked
        C("lint-sonic-multiport-key-bomb", _config_db(_multiport_keys(16_000, 9, "0-7")), exits=(1,),
          says=("config_db.json:", "more than 1,048,576 queues and PGs of ports in all")),
        # PORT_QOS_MAP keys naming 10,000 ports each (no PORT table): every port was made before the count at the end
        # (20 keys of 100,000 in 18 MB: 1.5 GB and 13 s); the count is checked as ports are made
        C("lint-sonic-ports-named-by-keys", _config_db(_qos_map_keys(2, 10_000)), exits=(1,),
          says=("config_db.json:1", "16,385 ports in one device")),
        # a key of 20,000 ports with PG 0-63 (no PG is above 7): its SYS002 quoted the 270 KB key whole (and the text
        # report its JSON pointer too), 40 such keys a report of 21 MB
        C("lint-sonic-long-key-quoted-cut", _config_db(_multiport_keys(20_000, 1, "0-63")), exits=(1,),
          says=("(268,894 characters) is not [<host>|<asic>|]<port>", "(268,905 characters)]")),
        # a DSCP list of 30,000 items: the check that none is listed twice sliced the list before each item (100,000:
        # 5 s; quadratic, and 4 MiB of YAML holds a million)
        C("policy-30000-dscps", _policy_case("name: x\nlossless:\n  priorities: [3]\n  dscp: ["
                                             + ", ".join(str(i % 64) for i in range(30_000)) + "]\n"),
          says=("p.yaml:4", "`lossless.dscp`: 0 is listed twice")),
        # render from a device file whose ECN would mark only after PFC pauses (here: 1,000 PGs assumed congested):
        # the refusal named the port, not the file it came from
        C("render-device-ecn-after-pfc", lambda t: ["render", "--platform", "sonic", "--device",
                                                    str(FABRIC / "leaf1" / "config_db.json"), "--policy",
                                                    str(_w(t / "p.yaml", POLICY_OK + "ecn:\n  assume_congested_queues: "
                                                           "1000\n"))],
          says=("config_db.json:12: port Ethernet0: ECN threshold",)),
        # a path with a NUL in it (YAML "\0"): os.open, os.stat and os.path.realpath raise ValueError on it; daemon
        # --check said the settings were valid and the daemon, `events --config`, a lint of the topology's folder and
        # a pull of the inventory stopped with an internal error (exit 3)
        C("daemon-history-nul", _settings_case(settings=_NUL_HISTORY), says=("losslessd.yaml:3", "NUL character")),
        C("events-config-history-nul", lambda t: ["events", "--config", _settings_case(settings=_NUL_HISTORY)(t)[2]],
          says=("losslessd.yaml:3", "NUL character")),
        C("topology-routes-nul", _topology_case('routes: {leaf1: "r\\0.txt"}\n'), exits=(1,),
          says=("topology.yaml:1", "holds a NUL character")),
        C("pull-password-file-nul", _inventory_case(INVENTORY.format(name="leaf1").replace(
            "password_env: HOSTILE_PW", 'password_file: "p\\0w"')), says=("password_file", "NUL character")),
        # an existing history file in a folder no file can be made in (SQLite's journal goes beside it): --check said
        # valid, the daemon stopped at its start
        C("daemon-history-in-proc", _settings_case(settings=_NUL_HISTORY.replace('"h\\0.db"', "/proc/self/status")),
          says=("/proc/self/status: cannot write the history database: the path is on the kernel's proc filesystem",)),
        # `losslessd rules` with its index replaced: tests/test_rule_index.py (the package's file is not touched here)
        # round 5 (session 28)
        # a host's interface or RDMA device name is written into its commands: `..` made `cat /sys/class/net/../mtu`
        # (a path out of /sys/class/net), `-h` an option to mlnx_qos and ethtool; refused before any connection
        *[C(f"pull-host-{field}-{label}", _inventory_case(_host_inventory(field, name)),
            says=("inv.yaml:6", f"`data.{field}` must be a list of", "not . or ..")) for field in ("interfaces",
                                                                                               "rdma_devices")
          for label, name in (("dotdot", "'..'"), ("dot", "'.'"), ("option", "-h"), ("slash", "a/b"))],
        # a known_hosts line paramiko's loader raises on (netmiko loads the file at each connection): every device
        # failed as "the CLI did not behave like netmiko expects" (SYS014, exit 1); refused before any connection
        *[C(f"pull-known-hosts-{label}", lambda t, line=line: (_w(t / "kh", "# keys\n" + line + "\n"), [
            *_inventory_case(INVENTORY.format(name="leaf1"))(t)[:-1], str(t / "kh")])[1],
            says=("kh:2", "not a known_hosts entry paramiko can load", why))
          for label, line, why in (("not-base64", "[10.0.0.1]:22 ssh-ed25519 !!!notbase64", "base64"),
                                   ("rsa-garbage", "10.0.0.2 ssh-rsa AAAAB3NzaC1yc2EAAAAB", "ValueError"))],
        C("daemon-known-hosts-not-base64", _settings_case(special=lambda t: _w(t / "known_hosts",
                                                                                "h ssh-ed25519 !!!notbase64\n")),
          says=("known_hosts:1", "not a known_hosts entry")),
        # a count of congested PGs no switch has (10^29) was taken, and ECN004 and render printed it as the load
        C("policy-congested-pgs-10e29", _policy_case(POLICY_OK + "ecn:\n  assume_congested_queues: 1" + "0" * 29
                                                     + "\n"),
          says=("p.yaml:4", "`ecn.assume_congested_queues` must be at most 131072")),
        C("policy-congested-pgs-old-name", _policy_case(POLICY_OK + "ecn:\n  congested_lossless_queues: 131073\n"),
          says=("p.yaml:4", "at most 131072")),
        C("pull-host-interfaces-16-chars", _inventory_case(_host_inventory("interfaces", "e" * 16)),
          says=("inv.yaml:6", "1-15 letters")),
        # round 6 (session 29): a name from the input written into a rendered snippet as it is
        # a CONFIG_DB pool named so that its JSON entry closes and opens another: render --device printed a patch
        # setting ingress_lossless_pool to 1,024 bytes (the later of two equal keys is the one JSON readers keep)
        C("render-sonic-pool-name-adds-an-entry", _render_device(lambda t: _sonic_renamed(
            t, "BUFFER_POOL", "egress_lossless_pool", _POOL_INJECTION)),
          says=("config_db.json:", "SONiC BUFFER_POOL name", "cannot be written into a snippet safely")),
        # an egress profile name with a quote: the snippet was no JSON (internal error, exit 3)
        C("render-sonic-egress-profile-quote", _render_device(lambda t: _sonic_renamed(
            t, "BUFFER_PROFILE", "egress_lossless_profile", 'egl"}, "Ethernet0|7": {"profile": "egress_lossy_profile')),
          says=("config_db.json:", "SONiC BUFFER_PROFILE name 'egl\"}")),
        C("fix-sonic-egress-profile-quote", lambda t: ["fix", str(_sonic_renamed(
            t, "BUFFER_PROFILE", "egress_lossless_profile", 'egl"}, "x": {"profile": "y'))], exits=(1,),
          says=("cannot work out a fix: ", "config_db.json:", "SONiC BUFFER_PROFILE name")),
        # a quoted Junos forwarding class name was written unquoted: `class roce ; delete interfaces no-loss`
        C("render-junos-quoted-class-name", lambda t: ["render", "--platform", "junos", "--family", "qfx5000",
                                                       "--policy", str(_w(t / "p.yaml", POLICY_OK + _CABLE)),
                                                       "--device", str(_junos_quoted_class(t))],
          says=("sw.cfg:12: forwarding class name 'roce ; delete interfaces' cannot be written",)),
        # an NX-OS policy-map name the snippet detaches (`no service-policy type qos input NAME`), written as it is
        C("render-nxos-attached-policy-name", lambda t: [
            "render", "--platform", "nxos", "--policy", str(_w(t / "p.yaml", POLICY_OK + _CABLE)), "--device",
            str(_w(t / "sw.cfg", _NXOS_LEAF.replace("PM-QOS-ROCE", "PM|reload;x")))],
          says=("sw.cfg:55: port Ethernet1/1: service policy (qos input) name 'PM|reload;x' cannot be written",)),
        # a policy file that does not name itself is named after its file: a newline in the file name wrote a line of
        # its own after the `# losslessd render: policy` comment (a command in a host script, an OpenSM option), and
        # after "checked against policy" in the lint report
        *[C(f"{cmd}-{plat}-policy-file-name-newline", lambda t, cmd=cmd, plat=plat, line=line: [
            *(["render", "--platform", plat, *(["--ports", "eth0:100G:5m"] if plat != "opensm" else [])]
              if cmd == "render" else ["lint", str(FABRIC / "spine1.cfg")]),
            "--policy", str(_w(t / f"x\n{line}.yaml", _unnamed_policy("infiniband" if plat == "opensm"
                                                                       else "roce-dscp26")))],
            says=(".yaml:1: the policy names itself nowhere, and its file name 'x\\n", "give it a `name:`"))
          for cmd, plat, line in (("render", "mlx5", "reboot"), ("render", "opensm", "sm_priority 0"),
                                  ("lint", "eos", "  error   PFC001 forged"))],
        # a file limit of 1e308 MiB is infinite bytes: int() raised (exit 3) in lint, render, the environment and the
        # daemon's settings
        C("lint-max-file-mb-1e308", lambda t: _lint(_fabric(t), extra=["--max-file-mb", "1e308"]),
          says=("--max-file-mb", "not 1e+308 (at most 8,796,093,022,207: 2^63 bytes)")),
        C("lint-env-max-file-mb-1e308", lambda t: _lint(_fabric(t)), env={"LOSSLESSD_MAX_FILE_MB": "1e308"},
          says=("LOSSLESSD_MAX_FILE_MB='1e308'", "2^63 bytes")),
        C("daemon-max-file-mb-1e308", _settings_case("max_file_mb: 1.0e+308\n"), says=("losslessd.yaml:4",
                                                                                       "max_file_mb")),
        # --pool-size beyond any pool (a 26-digit size was written into the patch) or below one byte
        *[C(f"render-pool-size-{label}", lambda t, v=v: ["render", "--platform", "sonic", "--sku", "ACS-MSN2700",
                                                          "--ports", "Ethernet0:100G:5m", "--pool-size", v],
            says=("'--pool-size'", says))  # (SAI sai_uint64_t)
          for label, v, says in (("26-digits", "9" * 26, "less than or equal to 18446744073709551615"),
                                 ("negative", "-5", "greater than or equal to 1"),
                                 ("zero", "0", "greater than or equal to 1"))],
        # one port given twice: each written with its own numbers (two speeds for Ethernet1/1)
        C("render-ports-twice", lambda t: ["render", "--platform", "nxos", "--family", "n9k", "--ports",
                                           "Ethernet1/1:100G:5m", "--ports", "Ethernet1/1:400G:300m"],
          says=("port 'Ethernet1/1' is given twice",)),
        C("render-ports-and-device-port", lambda t: ["render", "--platform", "sonic", "--device",
                                                     str(FABRIC / "leaf1"), "--ports", "Ethernet0:400G:5m"],
          says=("port 'Ethernet0' is given twice (the --device config has it at ", "config_db.json:12")),
        # `events`/`history` --since and --until: a duration in another script's digits was read (3 hours), one of
        # 5,000 digits was an infinite one, and the error quoted it whole
        C("events-since-other-digits", lambda t: ["events", "--db", str(_history_db(t)), "--since", "\u0663h"],
          says=("--since '\u0663h': give a duration ago",)),
        C("history-until-5000-digits", lambda t: ["history", "--db", str(_history_db(t)), "--device", "leaf1",
                                                  "--port", "Ethernet0", "--until", BIG_DIGITS + "d"],
          says=("--until '9999", "... (5,001 characters): give a duration ago")),
        # outputs: a FIFO no process reads where a report or a plot goes hung the command for ever (opened blocking);
        # a file where `tune report --out` wants a folder, or a folder it cannot make, was an internal error (exit 3)
        C("lint-output-fifo", lambda t: _lint(_fabric(t), extra=["--output", str(_fifo(t / "report.txt"))]),
          says=("report.txt: cannot write the report: it is a FIFO no process reads",)),
        # a socket: open(2) answers ENXIO for it too, which was said as "No such device or address"
        C("lint-output-socket", lambda t: _lint(_fabric(t), extra=["--output", str(_socket(t / "report.txt"))]),
          says=("report.txt: cannot write the report: not a regular file (a socket)",)),
        # a kernel interface file (round 13: /proc/version was said as "No such file or directory", the report's
        # temporary file being refused in /proc; /proc/self/comm took the report as the process's name)
        *[C(f"lint-output-proc-{label}", lambda t, path=path: _lint(_fabric(t), extra=["--output", path]),
            says=(f"{path}: cannot write the report: the path is on the kernel's proc filesystem",))
          for label, path in (("version", "/proc/version"), ("comm", "/proc/self/comm"), ("new", "/proc/x.txt"))],
        # `-o leaf1.cfg` meant for `-o leaf1.txt`: the report replaced the config it was made from
        C("lint-output-is-its-input", lambda t: _lint(_w(t / "sw" / "spine1.cfg", _SPINE1),
                                                      extra=["--output", str(t / "sw" / "spine1.cfg")]),
          says=("spine1.cfg: --output names", "which this lint read: the report would replace it")),
        C("history-plot-fifo", lambda t: ["history", "--db", str(_history_db(t, samples=True)), "--device", "leaf1",
                                          "--port", "Ethernet0", "--plot", str(_fifo(t / "plot.png"))],
          says=("plot.png: cannot write the plot: it is a FIFO no process reads",)),
        # an output linked to the database it is made from (round 13: the plot replaced the history file)
        C("history-plot-linked-to-its-db", lambda t: ["history", "--db", str(_history_db(t, samples=True)), "--device",
                                                      "leaf1", "--port", "Ethernet0", "--plot",
                                                      str(_link(t / "plot.png", t / "history.db"))],
          says=("plot.png: --plot names", "which this history read")),
        C("tune-report-plot-linked-to-its-db", lambda t: ["tune", "report", "--db", str(_tune_db(t)), "--out", str(
            _link(t / "plots" / "tune-1-score.png", t / "tune.sqlite").parent)],
          says=("tune-1-score.png: --out names", "which this tune report read")),
        C("tune-report-out-is-a-file", lambda t: ["tune", "report", "--db", str(_tune_db(t)), "--out",
                                                  str(_w(t / "plots", ""))],
          says=("plots: cannot make the folder for the plots: it is a file: --out names a folder",)),
        C("tune-report-out-below-a-file", lambda t: ["tune", "report", "--db", str(_tune_db(t)), "--out",
                                                     str(_w(t / "plots", "") / "x")],
          says=("cannot make the folder for the plots: Not a directory",)),
        C("tune-report-plot-fifo", lambda t: ["tune", "report", "--db", str(_tune_db(t)), "--out",
                                              str(_fifo(t / "plots" / "tune-1-knobs.png").parent)],
          says=("tune-1-knobs.png: cannot write the plot: it is a FIFO no process reads",)),
        # one file named 20,000 times: parsed 20,000 times (40 s), and each but the first an error of a second
        # device of the same name (SYS001, exit 1 for a clean config)
        C("lint-same-file-20000-times", lambda t: _lint(*[_w(t / "sw" / "spine1.cfg", _SPINE1)] * 20_000),
          exits=(1,), says=("1 device checked against policy roce-dscp26 (3 RoCE-facing ports): 2 errors",)),
        # a benchmark command line shlex cannot split (an unclosed quote, a trailing backslash): exit 3
        *[C(f"tune-benchmark-{label}", lambda t, cmd=cmd: ["tune", "-b", cmd, "-i", str(_w(
            t / "inv.yaml", INVENTORY.format(name="leaf1")))], says=("--benchmark", why)) for label, cmd, why in (
                ("unclosed-quote", "all_reduce_perf -b '8", "No closing quotation"),
                ("trailing-backslash", "all_reduce_perf \\", "No escaped character"))],
        # a number no SQLite INTEGER holds, asked of a state file: OverflowError, exit 3
        C("history-queue-30-digits", lambda t: ["history", "--db", str(_history_db(t, samples=True)), "--device",
                                                "leaf1", "--port", "Ethernet0", "--queue", "9" * 30],
          says=("--queue", "less than or equal to 255")),
        C("tune-report-tune-30-digits", lambda t: ["tune", "report", "--db", str(_tune_db(t)), "--tune", "9" * 30],
          says=("--tune", "less than or equal to 9223372036854775807")),
        # a FIFO where `pull --session-log` writes a device's log: opened blocking, the pull waited for ever (its
        # --timeout did not help); the device fails naming the file, before it is contacted
        C("pull-session-log-fifo", lambda t: [*_inventory_case(INVENTORY.format(name="leaf1"))(t), "--timeout", "2",
                                              "--retries", "0", "--session-log",
                                              str(_fifo(t / "logs" / "leaf1.1.log").parent)], exits=(1,),
          says=("leaf1: SYS014", "cannot write its session log", "leaf1.1.log: it is a FIFO no process reads")),
        # ... and a socket there was said to be a FIFO (any ENXIO was)
        C("pull-session-log-socket", lambda t: [*_inventory_case(INVENTORY.format(name="leaf1"))(t), "--timeout", "2",
                                                "--retries", "0", "--session-log",
                                                str(_socket(t / "logs" / "leaf1.1.log").parent)], exits=(1,),
          says=("leaf1: SYS014", "cannot write its session log", "leaf1.1.log: not a regular file (a socket)")),
        # round 14 (session 36): every output through limits' checks. A pull's --session-log or --out on a kernel
        # filesystem was made there (under /sys/fs/cgroup a mkdir makes a cgroup) and each device failed opening its
        # log (/proc/self: exit 1, nothing collected); a session log named like a file the pull read (here its
        # known_hosts) was emptied by netmiko's log; tune report --out in /proc was "No such file or directory"; a
        # tune database in /proc or a FIFO was SQLite's "unable to open database file" / "disk I/O error"
        C("pull-session-log-proc", lambda t: [*_inventory_case(INVENTORY.format(name="leaf1"))(t), "--session-log",
                                              "/proc/self"],
          says=("/proc/self: cannot write the session logs: the path is on the kernel's proc filesystem",)),
        C("pull-out-proc", lambda t: ["pull", "-i", str(_w(t / "inv.yaml", INVENTORY.format(name="leaf1"))), "-o",
                                      "/proc/self/snap", "--known-hosts", str(_w(t / "known_hosts", ""))],
          says=("/proc/self/snap: cannot write the snapshot: the path is on the kernel's proc filesystem",)),
        C("pull-session-log-is-its-known-hosts", lambda t: [
            "pull", "-i", str(_w(t / "inv.yaml", INVENTORY.format(name="leaf1"))), "-o", str(t / "out"), "--retries",
            "0", "--known-hosts", str(_w(t / "logs" / "leaf1.1.log", "")), "--session-log", str(t / "logs")],
          says=("leaf1.1.log: --session-log names", "which this pull read: the session log would replace it")),
        C("tune-report-out-proc", lambda t: ["tune", "report", "--db", str(_tune_db(t)), "--out",
                                             "/proc/self/new/plots"],
          says=("/proc/self/new/plots: cannot write the plots: the path is on the kernel's proc filesystem",)),
        *[C(f"tune-db-{label}", lambda t, db=db: (_inventory_case(INVENTORY.format(name="leaf1"))(t), [
            "tune", "-b", "true", "-i", str(t / "inv.yaml"), "--known-hosts", str(t / "known_hosts"), "--db",
            str(db(t))])[1], says=said)
          for label, db, said in (
              ("proc", lambda t: "/proc/self/comm", ("/proc/self/comm: cannot write the tune database: the path is on "
                                                     "the kernel's proc filesystem",)),
              ("fifo", lambda t: _fifo(t / "t.db"), ("t.db: cannot write the tune database: not a regular file (a "
                                                     "FIFO)",)))],
        # one LLDP output named by a topology 50,000 times (a list), or for 20,000 devices that are not linted: read and
        # parsed each time (2 ms each for a 2,000-neighbour file; 4 MiB of YAML names it 500,000 times)
        C("topology-lldp-one-file-50000-times", _topology_case(lambda f: (_w(f / "lldp.json", _lldp_json(2000)),
                                                                          "lldp:\n" + "  - lldp.json\n" * 50_000)[1]),
          exits=(1,), says=("LLDP output", "lldp.json is for lldp, which is not among the linted devices")),
        C("topology-lldp-20000-devices-one-file", _topology_case(lambda f: (_w(f / "lldp.json", _lldp_json(2000)), (
            "lldp:\n" + "".join(f"  d{i}: lldp.json\n" for i in range(20_000))))[1]), exits=(1,),
          says=("lldp: d19999 is not among the linted devices; its LLDP output",)),
        # a speed in another script's digits (ARABIC-INDIC DIGIT THREE): float() read 300 G
        C("render-ports-other-digits", lambda t: ["render", "--platform", "eos", "--family", "sand", "--ports",
                                                  "Ethernet1:\u066300G:5m"], says=("is not a link speed",)),
        # round 7 (session 30)
        # a routing table of 150,000 prefixes (10 MB): the address classes were worked out with a copy of the rest of
        # the sorted prefixes for each prefix (quadratic: 100,000 took 48 s, 200,000 more than 5 minutes)
        C("topology-routes-150000-prefixes", lambda t: (_many_routes(_w(t / "x", "").parent / "fab", 150_000),
                                                        _lint(t / "fab"))[1], exits=(1,), says=("8 devices checked",)),
        # a file of one unreadable line after another: an issue each (16 million lines of `}` in 32 MiB were 3 GB to
        # parse and 14 GB to lint); each code's first 1,000 of a file are listed, the rest counted by one more
        C("lint-junos-200000-stray-braces", lambda t: _lint(_w(t / "sw.cfg", _JUNOS_BRACES + "}\n" * 200_000),
                                                          "--format", "juniper_junos"), exits=(1,),
          says=("1001 warnings", "199,000 more SYS002 issues in this file, from this line on, are not listed one "
                "by one (at most 1,000 are); the first: `}` closes no block", "sw.cfg:1095]")),
        # ... and 2 million lines (8 MB) of them indented under a block: the line tree took 290 bytes a line (a node's
        # __dict__, a list of children for each, a list of every line), 2.4 GB at the 32 MiB limit; 124 now
        C("lint-nxos-2000000-unread-lines", lambda t: _lint(_w(t / "sw.cfg", _NXOS_LEAF.replace(
            "type network-qos PM-NQ-ROCE\n", "type network-qos PM-NQ-ROCE\n" + "  x\n" * 2_000_000, 1)),
            "--format", "cisco_nxos"), exits=(1,), says=("1,999,000 more SYS002 issues", "cannot read `x`")),
        # 2 million Junos `display set` lines that say nothing lossless (a letter, `set system ...`) after a real
        # configuration: the reader kept a statement (about 350 bytes) for each, so 32 MiB of one-letter lines took
        # 5.9 GB; only the lines that can change what is read are kept now, and a junk line's issue past the cap is
        # counted, not made
        C("lint-junos-2000000-junk-lines", lambda t: _lint(
            _w(t / "sw.cfg", _JUNOS_SET + "x\nset system y\n" * 1_000_000), "--format", "juniper_junos"), exits=(1,),
          says=("1001 warnings", "999,000 more SYS002 issues in this file, from this line on, are not listed one by "
                "one (at most 1,000 are); the first: line not read (not a `set` line): x", "sw.cfg:2051]")),
        # ... and 2 million settings in a port's block of the curly-brace form (`x;`): one statement kept for each,
        # 4.2 GB at the 32 MiB limit; a port's setting the reader does not read only makes the port, kept once now
        C("lint-junos-braces-2000000-port-settings", lambda t: _lint(_w(t / "sw.cfg", _JUNOS_BRACES.replace(
            "interfaces {\n", "interfaces {\n    et-0/0/9 {\n" + "        x;\n" * 2_000_000 + "    }\n", 1)),
            "--format", "juniper_junos"), exits=(0, 1)),
        # ... and more interface or class-of-service statements than 32 for each port of the largest switch: 1.4 million
        # short ones in 32 MiB took 900 MB to keep until the file was read
        C("lint-junos-statement-flood", lambda t: _lint(_w(t / "sw.cfg", _JUNOS_SET + "set class-of-service x\n" * (
            limits.MAX_KEPT_STATEMENTS + 10)), "--format", "juniper_junos"),
          says=("sw.cfg:", "statements that can change what is read (interfaces, class-of-service, VLANs, routing "
                            "instances, firewall filters: a generated file?); not read")),
        # a fleet folder of 20,000 empty files beside a switch (captures that failed): each was "cannot tell which
        # platform wrote this file" with the list of every platform (950 bytes; 100,000 of them a 95 MB report)
        C("lint-folder-20000-empty-files", lambda t: _lint(_empty_files(_fabric(t), 20_000)), exits=(1,),
          says=("e19999.cfg", "the file is empty: no configuration to read", "20000 inputs unread")),
        # a CONFIG_DB port named with a lone surrogate (`"Ethernet0\ud800"`, JSON allows it) that a finding names: its
        # fingerprint hashed the name's UTF-8, which Python refuses to make (JSON and SARIF reports: exit 3)
        *[C(f"lint-{fmt}-finding-on-lone-surrogate-port", lambda t, fmt=fmt: _lint(
            _w(t / "fab" / "leaf1" / "config_db.json", _LEAF1_DB.replace('"Ethernet0"', '"Ethernet0\\ud800"')).parent,
            extra=["-f", fmt]), exits=(1,), says=("Ethernet0\\\\ud800",)) for fmt in ("json", "sarif")],
        # round 10 (session 33): inventories as editors and generators break them (each refused before any
        # connection, with its line). Coverage: these three passed on the code before the round too. The rest of
        # the round is in tests/test_sources.py (counters of other digits), tests/test_tune_e2e.py (two tunes of
        # one device, a stop while sessions open), test_hostile_state.py
        C("pull-inventory-utf16", _inventory_case(INVENTORY.format(name="leaf1").encode("utf-16")),
          says=("inv.yaml:1", "UTF-16")),
        C("pull-inventory-port-20-digits", _inventory_case(INVENTORY.format(name="leaf1") + "    port: "
                                                           + "9" * 20 + "\n"),
          says=("inv.yaml:8", "host leaf1", "`port` must be a TCP port 1-65535")),
        C("pull-inventory-host-named-null", _inventory_case(INVENTORY.format(name="null")),
          # (the host's own line, 5: line 4, `hosts:`, until session 42 found no line for the pointer of None)
          says=("inv.yaml:5", "a name must be text, not a null (quote it)")),
        # round 12 (session 35): digits int() refuses ('²', which str.isdigit() takes) or reads as another
        # script's (Arabic-Indic '٣' is 3): an internal error (exit 3) in the environment's worker count and a
        # host script's `exit N` / `shift N`; the guard is units.is_digits now (test_hostile_numbers.py scans for
        # another isdigit()).
        *[C(f"lint-env-jobs-{label}", lambda t: _lint(_fabric(t)), env={"LOSSLESSD_JOBS": digit},
            says=(f"LOSSLESSD_JOBS={digit!r}", "not a number of worker processes"))
          for label, digit in (("superscript", "\u00b2"), ("arabic", "\u0663"))],
        C("lint-script-exit-superscript", _script("exit \u00b2\n" + _QOS), says=("nothing checked",)),
        C("lint-script-shift-superscript", _script("shift \u00b2\n" + _QOS), exits=(0, 1)),
        # round 13 (session 36): regular expressions from input ran in Python's backtracking `re` for minutes on a
        # near miss (a nested repeat; a chain of `.*` a Junos member or a host script's run-time parts make); RE2
        # now (losslessd.userre), and what needs backtracking is refused with its line
        C("lint-policy-regex-nested-repeat", lambda t: _lint(
            _w(t / "fab" / "leaf1" / "config_db.json",
               _LEAF1_DB.replace('"gpu01:enp65s0f0np0"', '"' + "a" * 30 + '!"')).parent,
            policy=str(_w(t / "p.yaml", 'name: x\nextends: roce-dscp26\nroce_ports:\n  select: all\n'
                                         '  description_regex: "^(\\\\w+\\\\s?)*-roce$"\n'))),
          says=("nothing checked",)),
        C("lint-policy-regex-lookbehind", _lint_policy_case("name: x\nroce_ports:\n  name_regex: '(?<!Ethernet)0'\n"),
          says=("p.yaml:3", "roce_ports.name_regex", "(?<!", "linear time")),
        C("lint-junos-member-stars", lambda t: _lint(_w(t / "sw.cfg", _junos_member_stars())), exits=(1,),
          says=("sw.cfg:",)),
        C("lint-script-run-time-parts", _script(f"mlnx_qos -i {'a' * 60} --trust dscp\nmlnx_qos -i "
                                                + "".join(f"$x{i}a" for i in range(12)) + "! --trust pcp\n"),
          exits=(0, 1), says=("known only at run time",)),
        # round 24 (session 43): what typer's Path drops of a name given (a trailing slash; `-` against `./-`), and
        # counts a device holds as integers written as fractions in a policy
        C("lint-output-trailing-slash", lambda t: _lint(_fabric(t), extra=["-o", f"{t / 'out.json'}/"]),
          says=("out.json/ ends with /", "this option names a file")),
        C("lint-input-file-trailing-slash", lambda t: _lint(f"{_w(t / 'sw.cfg', _SPINE1)}/"),
          says=("sw.cfg/ ends with /", "sw.cfg is a file")),
        C("pull-out-dash", lambda t: ["pull", "-i", str(_w(t / "inv.yaml", INVENTORY.format(name="leaf1"))), "-o",
                                      "-"], says=("`-` stands for standard input or output",)),
        C("lint-policy-bytes-fraction", _lint_policy_case("name: x\necn:\n  min_threshold_bytes: {min: 9216.5}\n"),
          says=("p.yaml:3", "`ecn.min_threshold_bytes.min` must be an integer")),
        # round 26 (session 45): a refused value echoed whole, a manifest naming a file outside its snapshot, a
        # capture header past the sniff's window, an SNMP timeout no SNMP target holds
        C("lint-jobs-env-100k-digits", lambda t: _lint(_fabric(t)), env={"LOSSLESSD_JOBS": "9" * 100_000},
          says=("LOSSLESSD_JOBS='9999", "(100,000 characters) is not a number of worker processes")),
        C("lint-manifest-capture-outside", _manifest_case(json.dumps({
            "format": "losslessd-snapshot", "version": 1, "devices": {"spine1": {
                "status": "ok", "capture": "../../etc/passwd", "issues": [
                    {"code": "SYS014", "line": 1, "message": "`show lldp neighbors` failed"}]}}})), exits=(1,),
          says=("the manifest names its capture '../../etc/passwd', no file of the snapshot folder",
                "manifest.json /devices/spine1")),
        C("lint-capture-header-5m-device", lambda t: _lint(_w(t / "leaf1.capture", (
            "#% losslessd capture 1\n#% device: " + "x" * 5_000_000 + "\n#% collected: 2026-01-01T00:00:00Z\n"
            "#% platform: arista_eos\n"
            "#% command: show running-config\n" + _SPINE1))),
          says=("leaf1.capture:2", "names its platform ('arista_eos') past the first 65,536 characters")),
        C("daemon-snmp-timeout-past-time-interval", _settings_case("poll:\n  snmp_timeout_s: 9.2e9\n"),
          says=("snmp_timeout_s",)),
    ]
    return out


_SPINE1 = (FABRIC / "spine1.cfg").read_text(encoding="utf-8")
_LEAF1_DB = (FABRIC / "leaf1" / "config_db.json").read_text(encoding="utf-8")
_JUNOS_SET = (ROOT / "tests" / "fixtures" / "raw" / "juniper_junos" / "roce-leaf.cfg").read_text(encoding="utf-8")
_JUNOS_BRACES = (ROOT / "tests" / "fixtures" / "raw" / "juniper_junos" / "roce-leaf-braces.cfg").read_text(
    encoding="utf-8")


def _many_routes(folder: Path, n: int) -> None:
    """The example fabric with ``n`` more BGP /32 routes in leaf1's FRR routing table."""
    shutil.copytree(FABRIC, folder)
    with open(folder / "routes" / "leaf1.txt", "a", encoding="utf-8") as f:
        f.writelines(f"B>* 10.{100 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}/32 [20/0] via 10.1.0.0, Ethernet48, "
                     "weight 1, 1d\n" for i in range(n))


_NXOS_LEAF = (ROOT / "tests" / "fixtures" / "raw" / "cisco_nxos" / "roce-leaf.cfg").read_text(encoding="utf-8")
_POOL_INJECTION = ('ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "1024"}, '
                   '"egress_lossless_pool')
_CABLE = "buffer:\n  default_cable_length_m: 5\n"


def _history_db(tmp: Path, samples: bool = False) -> Path:
    """A history file of the daemon's: empty, or with ``samples`` of leaf1 Ethernet0's pauses a minute ago."""
    from losslessd.history import History
    from losslessd.monitor import PFC_RX, Key, Rates

    history = History(tmp / "history.db")
    if samples:
        key = Key("Ethernet0", PFC_RX, 3)
        history.record_rates(Rates("leaf1", time.time() - 60, 10.0, {key: 100}, {key: 10.0}))
    history.close()
    return tmp / "history.db"


def _tune_db(tmp: Path) -> Path:
    """A tune database of one tune (number 1) with one trial, the settings as found."""
    from losslessd.tune.store import AS_FOUND, Store, Trial

    with Store(tmp / "tune.sqlite") as store:
        tune, _ = store.open_tune({"benchmark": ["x"], "budget": 3})
        store.add_trial(tune.id, Trial(0, AS_FOUND, "ok", True, score=10.0, measure=10.0, per_size={2**20: 10.0},
                                       output="x"))
    return tmp / "tune.sqlite"


def _sonic_renamed(tmp: Path, table: str, old: str, new: str) -> Path:
    """leaf1's config_db.json with ``table``'s entry ``old`` renamed ``new``, and every reference to it."""
    db = json.loads((FABRIC / "leaf1" / "config_db.json").read_text(encoding="utf-8"))
    db[table][new] = db[table].pop(old)
    refs = {"BUFFER_POOL": ("BUFFER_PROFILE", "pool"), "BUFFER_PROFILE": ("BUFFER_QUEUE", "profile")}[table]
    for entry in db[refs[0]].values():
        if entry.get(refs[1]) == old:
            entry[refs[1]] = new
    return _w(tmp / "leaf1" / "config_db.json", json.dumps(db, indent=1))


def _junos_quoted_class(tmp: Path) -> Path:
    """A QFX config (planted-mistakes.cfg) whose lossless forwarding class, on line 12, is named by a quoted string
    holding `; delete interfaces`."""
    text = (ROOT / "tests" / "fixtures" / "raw" / "juniper_junos" / "planted-mistakes.cfg").read_text(encoding="utf-8")
    quoted = '"roce ; delete interfaces"'
    return _w(tmp / "sw.cfg", text.replace("class roce ", f"class {quoted} ").replace("forwarding-class roce ",
                                                                                       f"forwarding-class {quoted} "))


def _unnamed_policy(shipped: str) -> str:
    """The shipped policy ``shipped`` without its `name:` (named after its file when loaded)."""
    text = (ROOT / "policies" / f"{shipped}.yaml").read_text(encoding="utf-8")
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("name:"))


def _qos_map_keys(keys: int, ports: int) -> str:
    """A CONFIG_DB of no PORT table whose PORT_QOS_MAP keys each name ``ports`` ports of their own."""
    return json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "x"}},
                       "PORT_QOS_MAP": {",".join(f"E{k}x{i}" for i in range(ports)): {"pfc_enable": "3"}
                                        for k in range(keys)}})


def _multiport_keys(ports: int, keys: int, pgs: str) -> str:
    """A CONFIG_DB whose BUFFER_PG keys each name every one of ``ports`` ports (rotated: the keys differ)."""
    names = [f"Ethernet{i}" for i in range(ports)]
    return json.dumps({"DEVICE_METADATA": {"localhost": {"hostname": "leaf9"}},
                       "BUFFER_POOL": {"q": {"size": "1000", "type": "ingress", "mode": "dynamic"}},
                       "BUFFER_PROFILE": {"p": {"pool": "q", "size": "0", "dynamic_th": "3"}},
                       "BUFFER_PG": {",".join(names[k:] + names[:k]) + "|" + pgs: {"profile": "p"}
                                     for k in range(keys)}})




def _host_inventory(field: str, name: str) -> str:
    """A linux_mlx5 host whose ``field`` (interfaces or rdma_devices) lists ``name``, on line 6."""
    data = f"{field}: [{name}]" if field == "interfaces" else f"interfaces: [ens1f0np0], {field}: [{name}]"
    return ("defaults:\n  username: admin\n  data: {credentials: {password_env: HOSTILE_PW}}\nhosts:\n"
            f"  gpu1: {{hostname: 127.0.0.1, platform: linux_mlx5,\n          data: {{{data}}}}}\n")


_QOS = "mlnx_qos -i eth0 --trust dscp\n"
_NUL_HISTORY = 'inventory: inventory.yaml\nknown_hosts: known_hosts\nhistory: {path: "h\\0.db"}\n'
_ONYX_CAPTURE = ROOT / "tests" / "fixtures" / "raw" / "nvidia_onyx" / "roce-mode-capture.txt"
_WORDS = " ".join(f"w{i}" for i in range(20_000))


def _junos_member_stars() -> str:
    """A port of 60 zeros and an interface-range member of twelve `*0` that misses it at its end."""
    port = "et-0/0/" + "0" * 60
    return (f"set system host-name sw\nset interfaces {port} mtu 9216\nset interfaces interface-range R member "
            f'"et-{"*0" * 12}!"\nset interfaces interface-range R mtu 9000\n'
            f"set class-of-service interfaces {port} unit 0 classifiers dscp x\n")


def _script(body: str) -> Callable[[Path], list[str]]:
    """A host setup script (linux_mlx5) of ``body`` to lint."""
    def build(tmp: Path) -> list[str]:
        return _lint(_w(tmp / "setup.sh", "#!/bin/bash\n" + body), "--format", "linux_mlx5")
    return build


def _reversed_routes(folder: Path) -> None:
    shutil.copytree(FABRIC, folder, dirs_exist_ok=True)
    routes = folder / "routes" / "leaf1.txt"
    routes.write_text("\n".join(reversed(routes.read_text(encoding="utf-8").split("\n"))), encoding="utf-8")


def _ibdiagnet(tmp: Path, text: str) -> Path:
    folder = tmp / "sm"
    shutil.copytree(ROOT / "tests" / "fixtures" / "raw" / "opensm" / "credit-loop", folder)
    _w(folder / "ibdiagnet.log", text)
    return folder


def _extends_chain(tmp: Path, n: int) -> Path:
    for i in range(n):
        _w(tmp / f"p{i}.yaml", f"name: p{i}\nextends: p{i + 1}.yaml\n")
    _w(tmp / f"p{n}.yaml", "name: last\n")
    return tmp / "p0.yaml"


def _extends_cycle(tmp: Path) -> Path:
    _w(tmp / "a.yaml", "name: a\nextends: b.yaml\n")
    _w(tmp / "b.yaml", "name: b\nextends: a.yaml\n")
    return tmp / "a.yaml"


def _group_chain(n: int, cycle: bool = False) -> str:
    groups = "".join(f"  g{i}: {{groups: [g{i + 1}]}}\n" for i in range(n - 1))
    groups += f"  g{n - 1}: {{platform: sonic{', groups: [g0]' if cycle else ''}}}\n"
    return INVENTORY.format(name="leaf1").replace("hosts:", "groups:\n" + groups + "hosts:") + "    groups: [g0]\n"


def _deep_folders(top: Path, depth: int) -> Path:
    """A device at the bottom of ``depth`` nested folders (deeper than Python's recursion limit)."""
    path = top
    path.mkdir()
    for _ in range(depth):  # os.makedirs recurses per level
        path = path / "d"
        os.mkdir(path)
    shutil.copy(FABRIC / "spine1.cfg", path / "leaf1.cfg")
    return top


def _link_loops(folder: Path) -> None:
    """Two links back to the folder itself: followed naively, 2^40 paths."""
    (folder / "a").symlink_to(".")
    (folder / "b").symlink_to(".")


def _link(path: Path, target: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


def _links_out(folder: Path) -> None:
    """Links out of the folder: to the root of the disk, and to a file of the system's."""
    (folder / "root").symlink_to("/")
    (folder / "pw.cfg").symlink_to("/etc/passwd")


def _long_path(folder: Path) -> None:
    """Sub-folders nested under 20 names of 250 characters: the path is longer than PATH_MAX (4,096), so the
    sub-folder cannot be listed by it (ENAMETOOLONG), whoever runs the test (root lists every folder mode 000)."""
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(20):
        os.mkdir("n" * 250, dir_fd=fd)
        fd, old = os.open("n" * 250, os.O_RDONLY, dir_fd=fd), fd
        os.close(old)
    os.close(fd)


def _deep_indent() -> str:
    """spine1's config with 3,000 lines each indented one space more than the last, inside an interface."""
    text = (FABRIC / "spine1.cfg").read_text(encoding="utf-8")
    return text + "interface Ethernet9/1\n" + "".join(f"{' ' * (i + 1)}description d{i}\n" for i in range(3000))


def _lldp_json(n: int) -> str:
    """`lldpcli -f json` of ``n`` neighbours, 18 lines each, Ethernet0 last (its name on line 18n - 13)."""
    entry = {"chassis": {"sw": {"id": {"type": "mac", "value": "0"}}}, "port": {"id": {"type": "ifname", "value": "E"}}}
    return json.dumps({"lldp": {"interface": [{f"Ethernet{i}": entry} for i in reversed(range(n))]}}, indent=2)


def _eos_ports() -> str:
    text = (FABRIC / "spine1.cfg").read_text(encoding="utf-8")
    return text + f"interface Ethernet{BIG_DIGITS}/1\n   priority-flow-control on\n!\n"


# ---- the harness -------------------------------------------------------------------------------------------
class _Hung(BaseException):
    pass


def _alarm(signum, frame):
    raise _Hung()


def run_case(case: Case, tmp: Path) -> Outcome:
    """Run one case through the CLI in this process; never raises."""
    from losslessd.cli.main import main

    folder = tmp / case.name
    folder.mkdir(parents=True)
    out, err = io.StringIO(), io.StringIO()
    exit_code: int | None = None
    escaped = hung = memory = False
    env = {"HOSTILE_PW": "pw", **case.env}
    saved_env = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    argv = sys.argv
    started = time.monotonic()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_S)
    try:
        args = case.build(folder)
        sys.argv = ["losslessd", *args]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
        exit_code = 0
    except SystemExit as exc:
        exit_code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except _Hung:
        hung = True
    except MemoryError:
        memory = escaped = True
        err.write("MemoryError\n")
    except BaseException:  # noqa: BLE001 - what the harness measures
        escaped = True
        err.write(traceback.format_exc())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        sys.argv = argv
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    text = out.getvalue() + err.getvalue()
    memory = memory or "MemoryError" in text
    # A traceback Python printed starts a line of stderr (a report may quote one found in an input file).
    printed = any(line.startswith("Traceback (most recent call last)") for line in err.getvalue().splitlines())
    # (the tail kept holds a whole JSON report: a three-port device's reaches 20 kB when its maps are unknown)
    outcome = Outcome(case.name, exit_code, text[-200_000:], escaped or printed, hung, memory,
                      round(time.monotonic() - started, 2))
    if outcome.hung:
        outcome.problems.append("hung")
    if outcome.traceback:
        outcome.problems.append("traceback")
    if exit_code not in case.exits and not hung:
        outcome.problems.append(f"exit {exit_code}, documented: {case.exits}")
    outcome.problems += [f"output does not say {s!r}" for s in case.says if s not in text]
    outcome.ok = not outcome.problems
    return outcome


def run_all(names: list[str] | None = None) -> list[Outcome]:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    chosen = [c for c in cases() if not names or c.name in names]
    results = []
    tmp = tempfile.mkdtemp(prefix="losslessd-hostile-")
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        for case in chosen:
            results.append(run_case(case, Path(tmp)))
    finally:
        os.chdir(cwd)
        _rmtree(tmp)
    return results


def _rmtree(top: str) -> None:
    """shutil.rmtree recurses per level: this one does not (lint-deep-folders nests 1,200 deep)."""
    stack = [(top, False)]
    while stack:
        path, emptied = stack.pop()
        if emptied:
            os.rmdir(path)
            continue
        if len(path) > 3000:  # (lint-folder-path-too-long's, near PATH_MAX: shutil's walk goes by folder handles)
            shutil.rmtree(path)
            continue
        stack.append((path, True))
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, False))
                else:
                    os.unlink(entry.path)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", help="run only this case (repeatable)")
    ap.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    args = ap.parse_args()
    results = run_all(args.only)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.json:
        print(json.dumps({"peak_rss_mib": peak_mib, "outcomes": [asdict(r) for r in results]}))
        return
    for r in results:
        flag = "ok  " if r.ok else "FAIL"
        print(f"{flag} {r.name:<34} exit {r.exit!s:<4} {r.seconds:6.2f} s  {'; '.join(r.problems)}")
    bad = [r for r in results if not r.ok]
    print(f"{len(results)} cases: {sum(r.traceback for r in results)} tracebacks, {sum(r.hung for r in results)} hung, "
          f"{sum(r.memory_error for r in results)} out of memory, {len(bad)} not as documented; "
          f"peak RSS {peak_mib:.0f} MiB")


if __name__ == "__main__":
    main()


def edited_db(src: Path, tmp_path: Path, sql: str) -> Path:
    """A copy of the SQLite file ``src`` with ``sql`` run on it: a state file someone edited or damaged."""
    path = tmp_path / f"edited-{src.name}"
    path.write_bytes(src.read_bytes())
    con = sqlite3.connect(path)
    con.executescript(sql)
    con.close()
    return path


def flipped_db(src: Path, tmp_path: Path, seed: int, first: int = 0) -> Path:
    """A copy of ``src`` with 1-40 bytes at or after offset ``first`` overwritten (random.Random(seed)): a state
    file damaged on disk."""
    rnd = random.Random(seed)
    data = bytearray(src.read_bytes())
    for _ in range(rnd.randint(1, 40)):
        data[rnd.randrange(first, len(data))] = rnd.randrange(256)
    path = tmp_path / f"flip{seed}-{src.name}"
    path.write_bytes(bytes(data))
    return path
