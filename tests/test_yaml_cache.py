"""The command line's cache of parsed YAML documents (losslessd.yamlcache, the topology file): a hit is the document
PyYAML made (value by value, type by type, line by line) without importing PyYAML; a changed file, a changed reading
module, a file swapped behind a link miss; a foreign, shared, linked or damaged entry is ignored; YAML errors, data
JSON cannot give back, LOSSLESSD_NO_CACHE and the library write nothing."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from losslessd import api, policycache, yamlcache
from losslessd.docpos import Document, load_yaml
from losslessd.errors import InputError
from losslessd.parse import topology as topology_file
from losslessd.policycache import ENV_NO_CACHE
from tests.conftest import ROOT, modules_not_listed

TOPOLOGIES = sorted([*ROOT.glob("examples/*/topology.yaml"), *ROOT.glob("tests/fixtures/**/topology.yaml")])
TEXT = "links:\n  - leaf1:Ethernet0 <-> spine1:Ethernet1/1\ntiers:\n  leaf1: 1\n  spine1: 2\nrouting: updown\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, the cache in use (as within `losslessd lint`)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(ENV_NO_CACHE, raising=False)
    with yamlcache.used():
        yield tmp_path / "cache" / "losslessd"


def _same(got: Document, want: Document) -> None:
    def walk(a: object, b: object, where: str) -> None:
        assert type(a) is type(b) and a == b, where
        if isinstance(b, dict):
            assert list(a) == list(b), where  # (the keys' order: links and tiers are read in it)
            for key in b:
                walk(a[key], b[key], f"{where}/{key}")  # type: ignore[index]
        elif isinstance(b, list):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):  # type: ignore[call-overload]
                walk(x, y, f"{where}/{i}")
    walk(got.data, want.data, got.file)
    assert (got.lines, got.file, got.duplicates) == (want.lines, want.file, want.duplicates)


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("yaml-*.json"))


@pytest.mark.parametrize("path", TOPOLOGIES, ids=[str(p.relative_to(ROOT)) for p in TOPOLOGIES])
def test_a_hit_is_the_document_pyyaml_made(path: Path, cache: Path) -> None:
    text = path.read_text()
    want = load_yaml("t.yaml", text)
    missed = yamlcache.load("t.yaml", text)
    assert len(_entries(cache)) == 1
    hit = yamlcache.load("shown.yaml", text)  # (the entry is the text's, shown by the name it is read by)
    _same(missed, want)
    _same(hit, Document(want.data, want.lines, "shown.yaml"))
    assert yamlcache._read(_entries(cache)[0], "0" * 64, "x") is None  # (the key is checked inside too)


def test_a_changed_file_misses(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "topology.yaml"
    path.write_text(TEXT)
    assert topology_file.read(path).routing == "updown"
    path.write_text(TEXT.replace("updown", "shortest-path"))
    assert topology_file.read(path).routing == "shortest-path"
    path.write_text(TEXT + " ")  # (trailing white space: the same document, other bytes: an entry of its own)
    assert topology_file.read(path).routing == "updown" and len(_entries(cache)) == 3


def test_a_file_swapped_behind_a_link_misses(cache: Path, tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TEXT)
    (tmp_path / "b.yaml").write_text(TEXT.replace("leaf1: 1", "leaf1: 3"))
    link = tmp_path / "topology.yaml"
    link.symlink_to("a.yaml")
    assert topology_file.read(link).tiers["leaf1"][0] == 1
    link.unlink()
    link.symlink_to("b.yaml")
    assert topology_file.read(link).tiers["leaf1"][0] == 3
    link.unlink()
    link.symlink_to("a.yaml")
    assert topology_file.read(link).tiers["leaf1"][0] == 1


def test_a_changed_reading_module_misses(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key tells every module of CODE changed (here a copy of the package whose modules get one more byte each)
    and the installed PyYAML."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "losslessd", copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(policycache, "__file__", str(copy / "policycache.py"))
    monkeypatch.setattr(policycache, "_MODULE_KEYS", {})
    before = yamlcache.code_identity()
    policycache._MODULE_KEYS.clear()
    assert yamlcache.code_identity() == before  # (the same files: the same key)
    for name in yamlcache.CODE:
        with (copy / name).open("ab") as file:
            file.write(b"\n")
        policycache._MODULE_KEYS.clear()  # (a process asks of each module once)
        changed = yamlcache.code_identity()
        assert changed != before, name
        before = changed
    yamlcache.load("t.yaml", TEXT)
    monkeypatch.setattr(yamlcache, "LIBRARIES", ("json",))  # (another PyYAML: another file)
    yamlcache.load("t.yaml", TEXT)
    assert len(_entries(cache)) == 2


def test_a_shared_foreign_or_linked_entry_is_ignored(cache: Path, tmp_path: Path) -> None:
    yamlcache.load("t.yaml", TEXT)
    (entry,) = _entries(cache)
    assert entry.stat().st_mode & 0o777 == 0o600
    forged = entry.read_bytes().replace(b"updown", b"routes")
    forged = json.dumps({**json.loads(forged), "sum": policycache.data_sum(json.loads(forged)["document"])}).encode()
    entry.write_bytes(forged)  # (one of the user's own entries that says "routes": read as it is)
    assert yamlcache.load("t.yaml", TEXT).data["routing"] == "routes"
    for mode in (0o666, 0o620):
        entry.chmod(mode)
        assert yamlcache.load("t.yaml", TEXT).data["routing"] == "updown"
        entry.chmod(0o600)
        entry.write_bytes(forged)
    if os.getuid() == 0:  # (only root gives a file away)
        os.chown(entry, 4242, -1)
        assert yamlcache.load("t.yaml", TEXT).data["routing"] == "updown"
        os.chown(entry, 0, -1)
        entry.write_bytes(forged)
    moved = tmp_path / "elsewhere.json"
    entry.rename(moved)
    entry.symlink_to(moved)
    assert yamlcache.load("t.yaml", TEXT).data["routing"] == "updown"
    assert not entry.is_symlink() and entry.stat().st_mode & 0o777 == 0o600  # (written afresh over the link)


@pytest.mark.parametrize("spoil", [
    lambda e: b"\x00garbage",
    lambda e: e[: len(e) // 2],
    lambda e: e.replace(b'"updown"', b'"routes"'),  # (a flipped byte: the sum no longer holds)
    lambda e: json.dumps({**json.loads(e), "format": 0}).encode(),
    lambda e: json.dumps([json.loads(e)]).encode(),
    lambda e: b"[" * 100_000,
], ids=["binary", "cut", "flipped", "format", "list", "deep"])
def test_a_damaged_entry_is_read_again(spoil, cache: Path) -> None:
    want = load_yaml("t.yaml", TEXT)
    yamlcache.load("t.yaml", TEXT)
    (entry,) = _entries(cache)
    entry.write_bytes(spoil(entry.read_bytes()))
    _same(yamlcache.load("t.yaml", TEXT), want)
    _same(yamlcache.load("t.yaml", TEXT), want)  # (written again, read back)


@pytest.mark.parametrize("text", [
    "links: [a:b <-> c:d]\nwhen: !!timestamp 2024-01-02\n",  # (a date)
    "links: [a:b <-> c:d]\ntiers: {1: 2}\n",  # (a key that is no text)
    "links: !!set {a: null}\n",
    "tiers: {leaf1: .inf}\n",
    "tiers: {leaf1: !!binary aGk=}\n",
    "tiers: {leaf1: 1, leaf1: 2}\n",  # (a key given twice: each reader decides)
], ids=["date", "int-key", "set", "inf", "binary", "duplicate"])
def test_what_json_cannot_give_back_is_never_kept(text: str, cache: Path) -> None:
    want = load_yaml("t.yaml", text)
    _same(yamlcache.load("t.yaml", text), want)
    _same(yamlcache.load("t.yaml", text), want)
    assert _entries(cache) == []


def test_a_yaml_error_is_never_kept(cache: Path) -> None:
    for _ in range(2):
        with pytest.raises(InputError) as err:
            yamlcache.load("t.yaml", "links:\n  - a\n b: [\n")
        assert err.value.file == "t.yaml" and err.value.line
    assert not cache.exists()


def test_switched_off_outside_the_command_or_unwritable_keeps_nothing(cache: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with yamlcache.used(False):
        yamlcache.load("t.yaml", TEXT)
    monkeypatch.setenv(ENV_NO_CACHE, "1")
    with yamlcache.used():
        yamlcache.load("t.yaml", TEXT)
    monkeypatch.delenv(ENV_NO_CACHE)
    assert not cache.exists()
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))  # (no folder can be made there: a read-only home)
    assert yamlcache.load("t.yaml", TEXT).data["routing"] == "updown"


def test_the_library_never_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(ENV_NO_CACHE, raising=False)
    result = api.lint([str(ROOT / "examples" / "fabric")], "roce-dscp26")
    assert result.fabric.topology_source is not None and not (tmp_path / "losslessd").exists()


@pytest.mark.slow
def test_the_key_covers_every_module_reading_yaml_runs() -> None:
    """yamlcache.CODE names every module of losslessd that reading a YAML file loads (docpos, then yamlread on
    first use)."""
    assert modules_not_listed("from losslessd.docpos import load_yaml\n"
                              "load_yaml('t.yaml', 'a: [1, 2.5, x]\\nb: {c: d}\\n')", yamlcache.CODE) == []


_RUN = """
import runpy, sys
sys.argv = ["losslessd", *sys.argv[1:]]
try:
    runpy.run_module("losslessd", run_name="__main__")
except SystemExit as end:
    code = end.code
print(code, sorted(m for m in sys.modules if m.split(".")[0] == "yaml" or m == "losslessd.yamlread"), file=sys.stderr)
"""


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["fabric", "clos"])
def test_a_lint_reads_its_topology_back_without_pyyaml_and_reports_alike(folder: str, tmp_path: Path) -> None:
    """The policy and the topology read back: no PyYAML; the JSON report, stderr and exit code are the miss's and
    those of `--no-policy-cache`, which writes nothing."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop(ENV_NO_CACHE, None)
    args = ["lint", f"examples/{folder}", "-f", "json"]
    off, miss, hit = (subprocess.run([sys.executable, "-c", _RUN, *args, *extra], cwd=ROOT, capture_output=True,
                                     text=True, env=env, timeout=300, check=False)
                      for extra in (["--no-policy-cache"], [], []))
    said = [(r.stdout, r.stderr.splitlines()[:-1], r.stderr.splitlines()[-1].split(" ", 1)) for r in (off, miss, hit)]
    assert said[0][:2] == said[1][:2] == said[2][:2]
    assert said[0][2][0] == said[1][2][0] == said[2][2][0]
    assert "losslessd.yamlread" in ast.literal_eval(said[1][2][1])
    assert ast.literal_eval(said[2][2][1]) == []
    assert len(list((tmp_path / "losslessd").glob("yaml-*.json"))) == 1


def test_a_library_is_found_once_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the policy's key and the topology's both name PyYAML: it was looked for on sys.path twice a lint, 0.3 M)
    import importlib.util

    monkeypatch.setattr(policycache, "_LIBRARY_KEYS", {})
    find = importlib.util.find_spec
    found: list[str] = []
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: found.append(name) or find(name, *a))
    policy_key, yaml_key = policycache.code_identity(), yamlcache.code_identity()
    assert sorted(found) == sorted(policycache.LIBRARIES)
    assert (policycache.code_identity(), yamlcache.code_identity()) == (policy_key, yaml_key)
    assert len(found) == len(policycache.LIBRARIES)
