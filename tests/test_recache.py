"""The command line's cache of compiled patterns' programs (losslessd.recache): for every lazy pattern losslessd holds,
the pattern made of its kept program answers as re.compile's does (flags, groups, group names; match and search on
every line of the raw fixtures and on hostile text); a damaged, cut, foreign, shared or linked entry and a program
the engine refuses are compiled by re as ever, never a crash; `used(False)`, LOSSLESSD_NO_CACHE and the library write
nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from losslessd import lazyre, recache
from losslessd.policycache import ENV_NO_CACHE
from tests.clirun import ROOT
from tests.test_lazyre import _lazies, _modules

# Every lazy pattern of losslessd, once each (the scan of test_lazyre: module names and their tuples' and dicts'
# members)
PATTERNS = sorted({(value.pattern, value._flags) for module in _modules() for _, value in _lazies(module)},
                  key=repr)
_RAW = sorted({line for path in (ROOT / "tests" / "fixtures" / "raw").rglob("*") if path.is_file()
               for line in path.read_text(encoding="utf-8", errors="surrogateescape").split("\n") if len(line) <= 300})
HOSTILE = ["", "\x00", "é", "\u200b", "\udc80", "\ufeff#% losslessd capture 1", "٣", "a" * 5000, "{" * 300,
           "Ethernet1/1\r", "\x1b[0m", "ＰFC", "0x1F", "-1", "99999999999999999999"]
LINES = [*_RAW, *HOSTILE]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, LOSSLESSD_NO_CACHE unset."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(ENV_NO_CACHE, raising=False)
    return tmp_path / "cache" / "losslessd"


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("re-*.json"))


def _keep(patterns) -> list[re.Pattern]:
    with recache.used():
        return [recache.compile_kept(pattern, flags) for pattern, flags in patterns]


def _answers(compiled: re.Pattern, line: str) -> list:
    text: str | bytes = line.encode("utf-8", "surrogateescape") if isinstance(compiled.pattern, bytes) else line
    out = []
    for found in (compiled.search(text), compiled.match(text)):
        out.append(None if found is None else (found.span(), found.groups(), found.groupdict()))
    return out


def _same(got: re.Pattern, want: re.Pattern, lines=LINES) -> None:
    assert (got.pattern, got.flags, got.groups, dict(got.groupindex)) == \
        (want.pattern, want.flags, want.groups, dict(want.groupindex))
    for line in lines:
        assert _answers(got, line) == _answers(want, line), (want.pattern, line)


def test_there_are_patterns_and_lines() -> None:
    # (330 lazy patterns at session 39; a scan that found none would prove nothing)
    assert len(PATTERNS) >= 380 and any(isinstance(p, bytes) for p, _ in PATTERNS) and len(_RAW) >= 1500


def test_every_kept_program_answers_as_re_compiles(cache: Path) -> None:
    missed = _keep(PATTERNS)  # (compiled as re._compiler.compile does, its program kept)
    (entry,) = _entries(cache)
    assert entry.stat().st_mode & 0o777 == 0o600
    with recache.used():
        got = [recache.compile_kept(pattern, flags) for pattern, flags in PATTERNS]
        hits = set(recache._hits)
    assert hits == {recache._key(pattern, flags) for pattern, flags in PATTERNS}  # (each one from its program)
    for (pattern, flags), compiled, first in zip(PATTERNS, got, missed, strict=True):
        want = re.compile(pattern, flags)
        _same(compiled, want)
        _same(first, want)


def test_a_lazy_pattern_takes_its_program_within_used_alone(cache: Path) -> None:
    text = "interface Ethernet1/1\n"
    _keep([(r"^interface (?P<name>\S+)$", re.M)])
    with recache.used():
        pattern = lazyre.lazy(r"^interface (?P<name>\S+)$", re.M)
        assert pattern.search(text).group("name") == "Ethernet1/1"
        assert recache._hits == {recache._key(r"^interface (?P<name>\S+)$", re.M)}
    assert lazyre._compile is None  # (after it, re.compile as ever)
    assert lazyre.lazy(r"(?P<x>a)").search("a").groupdict() == {"x": "a"}


def _forged(entry: Path, edit) -> bytes:
    """The entry with its programs changed by ``edit`` and its digest made to fit (the user's own edit)."""
    head, _, body = entry.read_bytes().partition(b"\n")
    programs = json.loads(body)
    edit(programs)
    body = json.dumps(programs).encode()
    return json.dumps({**json.loads(head), "sum": recache._sum(body)}).encode() + b"\n" + body


SAMPLE = [(r"^(?P<port>Ethernet\d+)\s+pfc\s+(\d)$", re.M), (r"[\x00-\x08]+", 0), (rb"[\x80-\xff]{3}", 0),
          (r"(?i)ecn\s+(on|off)", 0)]


def _each(programs: dict, change) -> None:
    for key in programs:
        programs[key] = change(programs[key])


@pytest.mark.parametrize("spoil", [
    lambda e: b"\x00garbage",
    lambda e: b"",
    lambda e: e[: len(e) // 2],  # (cut)
    lambda e: e[:-3] + (b"0" if e[-3:-2] != b"0" else b"1") + e[-2:],  # (a flipped byte: the digest no longer holds)
    lambda e: e.replace(b'"format": 1', b'"format": 0'),
    lambda e: e.replace(b'"key": "', b'"key": "0'),  # (another Python's)
    lambda e: b"[" * 100_000,
    lambda e: e.split(b"\n", 1)[1],  # (no head)
], ids=["binary", "empty", "cut", "flipped", "format", "foreign", "deep", "headless"])
def test_a_damaged_entry_is_compiled_by_re(spoil, cache: Path) -> None:
    _keep(SAMPLE)
    (entry,) = _entries(cache)
    entry.write_bytes(spoil(entry.read_bytes()))
    for _ in range(2):  # (then written again, and read back)
        with recache.used():
            got = [recache.compile_kept(pattern, flags) for pattern, flags in SAMPLE]
        for (pattern, flags), compiled in zip(SAMPLE, got, strict=True):
            _same(compiled, re.compile(pattern, flags))


@pytest.mark.parametrize("edit", [
    lambda p: _each(p, lambda v: [v[0], "00" * (len(v[1]) // 2), v[2]]),  # (code the engine refuses)
    lambda p: _each(p, lambda v: [v[0], v[1][:-1], v[2]]),  # (hex cut: no whole unit)
    lambda p: _each(p, lambda v: [v[0], v[1][:-8], v[2]]),  # (a unit short)
    lambda p: _each(p, lambda v: [v[0], "zz" + v[1][2:], v[2]]),
    lambda p: _each(p, lambda v: [v[0], v[1]]),
    lambda p: _each(p, lambda v: {"program": v}),
    lambda p: _each(p, lambda v: [v[0], v[1], 7]),
    lambda p: _each(p, lambda v: [v[0], v[1], [None, *range(1, len(v[2]))]]),  # (names that are numbers)
    lambda p: _each(p, lambda v: [v[0], v[1], []]),
    lambda p: _each(p, lambda v: ["32", v[1], v[2]]),
    lambda p: _each(p, lambda v: [2**70, v[1], v[2]]),
    lambda p: _each(p, lambda v: [v[0], "ff" * (len(v[1]) // 2), v[2]]),
    lambda p: _each(p, lambda v: [v[0], 12, v[2]]),
], ids=["zeros", "odd-hex", "short", "not-hex", "two", "object", "names", "name-numbers", "no-names", "flag-text",
        "huge", "ones", "code-number"])
def test_a_program_the_engine_refuses_is_compiled_by_re(edit, cache: Path) -> None:
    _keep(SAMPLE)
    (entry,) = _entries(cache)
    entry.write_bytes(_forged(entry, edit))
    with recache.used():
        got = [recache.compile_kept(pattern, flags) for pattern, flags in SAMPLE]
    for (pattern, flags), compiled in zip(SAMPLE, got, strict=True):
        _same(compiled, re.compile(pattern, flags))


def test_a_shared_foreign_or_linked_entry_is_ignored(cache: Path, tmp_path: Path) -> None:
    _keep(SAMPLE)
    (entry,) = _entries(cache)

    def hits() -> set[str]:
        with recache.used():
            for pattern, flags in SAMPLE:
                recache.compile_kept(pattern, flags)
            return set(recache._hits)

    assert len(hits()) == len(SAMPLE)
    for mode in (0o666, 0o620):
        entry.chmod(mode)
        assert hits() == set()
        assert entry.stat().st_mode & 0o777 == 0o600  # (written afresh)
    if os.getuid() == 0:  # (only root gives a file away)
        os.chown(entry, 4242, -1)
        assert hits() == set()
    moved = tmp_path / "elsewhere.json"
    entry.rename(moved)
    entry.symlink_to(moved)
    assert hits() == set()
    assert not entry.is_symlink() and entry.stat().st_mode & 0o777 == 0o600


def test_nothing_is_written_unless_asked(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with recache.used(False):
        assert lazyre._compile is None
        lazyre.lazy(r"(a)(b)").search("ab")
    lazyre.lazy(r"(a)(c)").search("ac")  # (the library: no `used`)
    monkeypatch.setenv(ENV_NO_CACHE, "1")
    with recache.used():
        assert lazyre._compile is None
        lazyre.lazy(r"(a)(d)").search("ad")
    assert not cache.exists() or _entries(cache) == []


def test_the_entry_keeps_a_runs_own_programs_past_its_bound(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recache, "MAX_PROGRAMS", 3)
    _keep(SAMPLE[:3])
    _keep(SAMPLE[:1] + SAMPLE[3:])  # (4 would be more than 3: the run's own two, one read and one compiled)
    (entry,) = _entries(cache)
    kept = json.loads(entry.read_bytes().partition(b"\n")[2])
    assert set(kept) == {recache._key(*p) for p in SAMPLE[:1] + SAMPLE[3:]}


@pytest.mark.slow
def test_every_lazy_pattern_is_the_same_text_in_every_run() -> None:
    # A pattern built from a set in its order (SONiC's table names, sorted by length alone) was another text under
    # each hash seed: another program kept on every run, never found again.
    code = ("from tests.test_recache import PATTERNS\nimport hashlib\n"
            "print(hashlib.sha256(repr(PATTERNS).encode('utf-8', 'surrogatepass')).hexdigest())")
    seen = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2", "3")}
    assert len(seen) == 1


@pytest.mark.slow
def test_a_lint_reports_alike_missing_hitting_and_without_the_cache(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop(ENV_NO_CACHE, None)

    def lint(*extra: str) -> tuple[int, str, str]:
        ran = subprocess.run([sys.executable, "-m", "losslessd", "lint", "examples/fabric", "-f", "json", *extra],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        return ran.returncode, ran.stdout, ran.stderr

    missed = lint()
    (entry,) = sorted((tmp_path / "cache" / "losslessd").glob("re-*.json"))
    assert entry.stat().st_mode & 0o777 == 0o600 and len(json.loads(entry.read_bytes().partition(b"\n")[2])) >= 50
    assert lint() == missed == lint("--no-policy-cache")


# A lint run again with its programs kept: what `re` still compiles while the devices are read (fabric.parse_one), with
# the losslessd module that asked (the last frame outside `re`). Session 44 (part b): the platforms' refusal matchers
# (Platform.refusal), printable.DEVICE_UNSEEN, split_shell's patterns, the host script reader's 49 and the parsers'
# patterns given to re's functions as text were compiled by `re` in every lint.
_PARSE_COMPILES = """
import re._compiler, runpy, sys, traceback
from losslessd import fabric
inside, seen, compile_ = [False], [], re._compiler.compile
def counted_compile(pattern, flags=0):
    if inside[0]:
        frames = [f for f in traceback.extract_stack()[:-1] if "/re/" not in f.filename]
        seen.append(f"{frames[-1].filename}:{frames[-1].lineno}: {pattern!r}")
    return compile_(pattern, flags)
re._compiler.compile = counted_compile
parse_one = fabric.parse_one
def parse_counted(*args, **kwargs):
    inside[0] = True
    try:
        return parse_one(*args, **kwargs)
    finally:
        inside[0] = False
fabric.parse_one = parse_counted
sys.argv = ["losslessd", *sys.argv[1:]]
try:
    runpy.run_module("losslessd", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print("\\n".join(seen), file=sys.stderr)
"""


_RAW_FOLDERS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "fixtures" / "raw").iterdir() if p.is_dir())


@pytest.mark.slow
@pytest.mark.parametrize("paths", [["examples/fabric"], ["examples/infiniband"], ["examples/clos"], _RAW_FOLDERS],
                         ids=["fabric", "infiniband", "clos", "raw"])
def test_a_lint_run_again_compiles_no_pattern_of_its_parsers(paths: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop(ENV_NO_CACHE, None)
    command = ["lint", *paths, "--jobs", "1", "-f", "json"]
    first = subprocess.run([sys.executable, "-m", "losslessd", *command], cwd=ROOT, env=env, capture_output=True)
    assert first.returncode in (0, 1, 2), first.stderr  # (a raw fixture may be unreadable on purpose: SYS001)
    again = subprocess.run([sys.executable, "-c", _PARSE_COMPILES, *command], cwd=ROOT, env=env, capture_output=True,
                           text=True)
    assert again.stdout.encode() == first.stdout  # (the same report)
    compiled = [line for line in again.stderr.splitlines() if line.strip()]
    # (left: PyYAML's resolver patterns, which losslessd.yamlread adds when an NVUE file is the first YAML read)
    assert [line for line in compiled if "/losslessd/yamlread.py:" not in line] == []
