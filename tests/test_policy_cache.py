"""The command line's cache of validated policies (losslessd.policycache): a hit reads the same policy pydantic
validated (attribute by attribute, finding by finding) without importing pydantic or PyYAML; any change of a file of
the `extends` chain, a foreign, shared or corrupt entry misses; errors and the library API write nothing."""

from __future__ import annotations

import ast
import json
import os
import pickle
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from losslessd import api, policycache, policyview
from losslessd.errors import InputError
from losslessd.policy import Policy, load_policy, shipped
from tests.conftest import ROOT, modules_not_listed

PROFILES = sorted(shipped())


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, the working folder a scratch one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(policycache.ENV_NO_CACHE, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path / "cache" / "losslessd"


def _twins(model: BaseModel, plain: object, where: str) -> None:
    assert sorted(type(model).model_fields) == sorted(plain.__slots__), where  # type: ignore[attr-defined]
    for name in type(model).model_fields:
        want, got = getattr(model, name), getattr(plain, name)
        if isinstance(want, BaseModel):
            _twins(want, got, f"{where}.{name}")
        else:
            assert got == want and type(got) is type(want), f"{where}.{name}: {got!r} != {want!r}"
            if isinstance(want, list | dict):
                items = want.items() if isinstance(want, dict) else enumerate(want)
                assert [type(v) for _, v in items] == [type(v) for v in (got.values() if isinstance(got, dict)
                                                                         else got)], f"{where}.{name}"


@pytest.mark.parametrize("profile", PROFILES)
def test_the_view_is_the_validated_policy_attribute_by_attribute(profile: str) -> None:
    validated = load_policy(profile)
    plain = policyview.view(json.loads(json.dumps(validated.model_dump())))  # (as the cache keeps it)
    _twins(validated, plain, profile)
    for part in ("min_threshold_bytes", "max_threshold_bytes", "mark_probability_pct"):
        want, got = getattr(validated.ecn, part), getattr(plain.ecn, part)
        assert got.describe("B") == want.describe("B")
        assert [got.contains(v) for v in (0, 0.5, 1e6, 1e12)] == [want.contains(v) for v in (0, 0.5, 1e6, 1e12)]
    assert plain.ecn.assumed_congested == validated.ecn.assumed_congested
    assert pickle.loads(pickle.dumps(plain)) == plain  # (a parallel lint's workers get it pickled)
    with pytest.raises(AttributeError):
        plain.lossless.dscp = [1]


def _lint(*args: str, env: dict, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "losslessd", "lint", *args], cwd=cwd, capture_output=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env}, timeout=300, check=False)


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
def test_hit_and_miss_report_alike(profile: str, tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    lint = ("examples/fabric", "--policy", profile)
    miss = _lint(*lint, "-f", "json", env=env)  # (validated, written)
    entries = list((tmp_path / "losslessd").glob("policy-*.json"))
    assert len(entries) == 1 and entries[0].stat().st_mode & 0o777 == 0o600
    written = entries[0].stat().st_mtime_ns
    hit = _lint(*lint, "-f", "json", env=env)
    assert entries[0].stat().st_mtime_ns == written  # (a hit writes nothing)
    assert (hit.returncode, hit.stdout, hit.stderr) == (miss.returncode, miss.stdout, miss.stderr)
    assert miss.returncode in (0, 1) and json.loads(hit.stdout)["findings"] is not None
    fix_hit = _lint(*lint, "--fix", env=env)  # (the text report, the fix plan and its renderers read the policy)
    fix_validated = _lint(*lint, "--fix", "--no-policy-cache", env=env)
    assert (fix_hit.returncode, fix_hit.stdout, fix_hit.stderr) == \
        (fix_validated.returncode, fix_validated.stdout, fix_validated.stderr)
    assert fix_hit.returncode in (0, 1) and b"Traceback" not in fix_hit.stderr


_MODULES = """
import runpy, sys
sys.argv = ["losslessd", "lint", *sys.argv[1:]]
try:
    runpy.run_module("losslessd", run_name="__main__")
except SystemExit as exc:
    code = exc.code
print(code, sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core", "yaml")
                   or m.startswith("losslessd.policy")), file=sys.stderr)
"""


@pytest.mark.slow
def test_a_hit_imports_neither_pydantic_nor_pyyaml(tmp_path: Path) -> None:
    """A lint of one switch (no topology file: nothing else reads YAML) whose policy was validated before."""
    env = {"XDG_CACHE_HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    args = ["tests/fixtures/raw/cisco_nxos/roce-leaf.cfg", "--policy", "roce-dscp26"]
    runs = [subprocess.run([sys.executable, "-c", _MODULES, *args], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, **env}, timeout=300, check=False) for _ in range(2)]
    (miss_code, missed), (hit_code, hit) = (_said(r.stderr) for r in runs)
    assert "pydantic" in missed and "yaml" in missed and "losslessd.policy" in missed
    assert hit == ["losslessd.policycache", "losslessd.policyview"]
    assert runs[0].stdout == runs[1].stdout and miss_code == hit_code


def _said(stderr: str) -> tuple[int, list[str]]:
    code, modules = stderr.strip().splitlines()[-1].split(" ", 1)
    return int(code), ast.literal_eval(modules)


def _chain(folder: Path) -> list[Path]:
    """site.yaml -> region.yaml -> base.yaml (roce-dscp26's text) -> nothing."""
    base = folder / "base.yaml"
    base.write_text((ROOT / "policies" / "roce-dscp26.yaml").read_text().replace("name: roce-dscp26", "name: base"))
    (folder / "region.yaml").write_text("extends: base.yaml\necn:\n  kmin_min_mtus: 2\n")
    (folder / "site.yaml").write_text("name: site\nextends: region.yaml\ndescription: the site\n")
    return [folder / "site.yaml", folder / "region.yaml", base]


@pytest.mark.parametrize("changed", [0, 1, 2], ids=["site", "region", "base"])
def test_any_byte_of_the_extends_chain_changed_misses(changed: int, cache: Path, tmp_path: Path) -> None:
    files = _chain(tmp_path / "work")
    first = policycache.load("site.yaml")
    hit = policycache.load("site.yaml")
    assert isinstance(first, BaseModel) and isinstance(hit, policyview.Policy)
    assert hit.ecn.kmin_min_mtus == 2 and hit.name == "site" and hit.source_file == "site.yaml"
    with files[changed].open("ab") as f:
        f.write(b" ")  # (trailing white space: the same policy, other bytes)
    assert isinstance(policycache.load("site.yaml"), BaseModel)
    assert isinstance(policycache.load("site.yaml"), policyview.Policy)  # (written again)


def test_another_working_folder_or_the_code_changed_misses(cache: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _chain(tmp_path / "work")
    policycache.load("site.yaml")
    assert policycache.read("site.yaml", policycache.code_identity()) is not None
    assert policycache.read("site.yaml", "0" * 64) is None  # (another losslessd, pydantic or PyYAML)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError):  # (no site.yaml here: the entry of the other folder is not this one's)
        policycache.load("site.yaml")


def _entry(cache: Path) -> Path:
    (entry,) = cache.glob("policy-*.json")
    return entry


def test_a_shared_foreign_or_linked_entry_is_ignored(cache: Path) -> None:
    policycache.load("roce-dscp26")
    entry = _entry(cache)
    identity = policycache.code_identity()
    assert policycache.read("roce-dscp26", identity) is not None
    entry.chmod(0o666)
    assert policycache.read("roce-dscp26", identity) is None
    entry.chmod(0o620)
    assert policycache.read("roce-dscp26", identity) is None
    entry.chmod(0o600)
    if os.getuid() == 0:  # (only root gives a file away)
        os.chown(entry, 4242, -1)
        assert policycache.read("roce-dscp26", identity) is None
        os.chown(entry, 0, -1)
    moved = entry.with_name("elsewhere.json")
    entry.rename(moved)
    entry.symlink_to(moved)
    assert policycache.read("roce-dscp26", identity) is None
    entry.unlink()
    assert isinstance(policycache.load("roce-dscp26"), BaseModel)  # (validated, written afresh: 0600)
    assert _entry(cache).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("spoil", [
    lambda e: b"\x00garbage",
    lambda e: e[: len(e) // 2],
    lambda e: e.replace(b'"kmin_min_mtus"', b'"kmin_min_mtu"'),  # (a field of another version)
    lambda e: e.replace(b'"lossless": {', b'"lossless": 3, "x": {'),
    lambda e: json.dumps({**json.loads(e), "files": [["/nonexistent", "0"]]}).encode(),
    lambda e: json.dumps([json.loads(e)]).encode(),
    lambda e: b"[" * 100_000,
    lambda e: e.replace(b'"dscp": [26]', b'"dscp": [27]'),  # (a flipped bit: another DSCP)
], ids=["binary", "cut", "field", "shape", "files", "list", "deep", "flipped"])
def test_a_corrupt_entry_is_validated_again(spoil, cache: Path) -> None:
    policycache.load("roce-dscp26")
    entry = _entry(cache)
    entry.write_bytes(spoil(entry.read_bytes()))
    assert isinstance(policycache.load("roce-dscp26"), BaseModel)
    assert isinstance(policycache.load("roce-dscp26"), policyview.Policy)


@pytest.mark.slow
def test_a_corrupt_entry_lints_as_ever_without_a_traceback(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    args = ("tests/fixtures/raw/cisco_nxos/roce-leaf.cfg", "--policy", "roce-dscp26", "-f", "json")
    want = _lint(*args, env=env)
    for entry in (tmp_path / "losslessd").glob("policy-*.json"):
        entry.write_bytes(b'{"format": 1, "policy": {')
    got = _lint(*args, env=env)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    assert b"Traceback" not in got.stderr


def test_a_policy_error_is_never_kept(cache: Path, tmp_path: Path) -> None:
    bad = tmp_path / "work" / "bad.yaml"
    bad.write_text("name: bad\necn:\n  kmin_min_mtus: -1\n")
    for _ in range(2):
        with pytest.raises(InputError) as err:
            policycache.load("bad.yaml")
        assert (err.value.file, err.value.line) == ("bad.yaml", 3)
    assert not cache.exists()


def test_unwritable_cache_or_switched_off_keeps_nothing(cache: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(policycache.load("roce-dscp26", cache=False), BaseModel)
    monkeypatch.setenv(policycache.ENV_NO_CACHE, "1")
    assert isinstance(policycache.load("roce-dscp26"), BaseModel)
    assert not cache.exists()
    monkeypatch.delenv(policycache.ENV_NO_CACHE)
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))  # (no folder can be made there: a read-only home)
    assert isinstance(policycache.load("roce-dscp26"), BaseModel)


def test_the_library_never_writes(cache: Path) -> None:
    api.lint([str(ROOT / "examples" / "fabric" / "spine1.cfg")], "roce-dscp26")
    load_policy("roce-dscp26")
    assert isinstance(api.load_policy, type(load_policy)) and api.Policy.__name__ == "Policy"
    assert not cache.exists()


@pytest.mark.slow
def test_the_key_covers_every_module_the_validation_runs() -> None:
    """policycache.CODE names every module of losslessd that validating a policy loads: importing losslessd.policy,
    and what reading and validating every shipped profile (extends chains among them) imports on first use."""
    assert modules_not_listed("from losslessd.policy import load_policy, shipped\n[load_policy(p) for p in shipped()]",
                              policycache.CODE) == []


@pytest.mark.slow
def test_another_copy_of_the_same_code_reads_its_own_shipped_profiles(tmp_path: Path) -> None:
    """A source tree and a wheel (here: a copy) of the same losslessd ship their own roce-dscp26.yaml: a policy that
    extends it, validated by one, is no hit for the other."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "losslessd", copy / "losslessd", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "policies", copy / "policies")
    profile = copy / "policies" / "roce-dscp26.yaml"
    profile.write_text(profile.read_text().replace("\ndescription: ", "\ndescription: the copy's "))
    (tmp_path / "site.yaml").write_text("name: site\nextends: roce-dscp26\n")
    said = "from losslessd import policycache; print(policycache.load('site.yaml').description)"
    runs = [subprocess.run([sys.executable, "-c", said], cwd=tmp_path, capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONPATH": str(tree), "XDG_CACHE_HOME": str(tmp_path / "cache")},
                           timeout=300).stdout for tree in (ROOT, copy)]
    assert not runs[0].startswith("the copy's") and runs[1].startswith("the copy's")


def test_a_file_of_the_chain_linked_to_another_of_it_misses_as_the_loop_it_is(cache: Path, tmp_path: Path) -> None:
    """d1/d2/p.yaml and d1/p.yaml hold the same bytes (`extends: ../q.yaml` names another file from each): made a
    link to the other, every path of the chain reads the bytes it read before, and the chain is a loop."""
    work = tmp_path / "work"
    (work / "d1" / "d2").mkdir(parents=True)
    (work / "a.yaml").write_text("name: a\nextends: d1/d2/p.yaml\n")
    for same in (work / "d1" / "d2" / "p.yaml", work / "d1" / "p.yaml"):
        same.write_text("extends: ../q.yaml\n")
    (work / "d1" / "q.yaml").write_text("extends: p.yaml\n")
    (work / "q.yaml").write_text("extends: roce-dscp26\n")
    policycache.load("a.yaml")
    assert isinstance(policycache.load("a.yaml"), policyview.Policy)
    (work / "d1" / "d2" / "p.yaml").unlink()
    (work / "d1" / "d2" / "p.yaml").symlink_to("../p.yaml")
    with pytest.raises(InputError, match="extends forms a loop"):
        policycache.load("a.yaml")


def _models(annotation: object) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (``BytesRange | None``, ``list[X]``, ``Annotated[...]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def test_the_view_has_every_field_of_every_model_of_a_policy() -> None:
    """From the models' declarations, not the shipped profiles' values: a field added to a model (a section no
    shipped profile sets, None in all of them) fails here until the view has it, and a model in a field is a view
    class in policyview._NESTED (else the rules would get a dict)."""
    pairs, checked = [(Policy, policyview.Policy)], 0
    while pairs:
        model, plain = pairs.pop()
        assert sorted(model.model_fields) == sorted(plain.__slots__), plain.__name__
        nested = policyview._NESTED.get(plain, {})
        for name, field in model.model_fields.items():
            inner = _models(field.annotation)
            assert (name in nested) == bool(inner), f"{plain.__name__}.{name}"
            pairs += [(m, nested[name]) for m in inner]
        checked += 1
    assert checked > 10


def test_the_cache_keeps_the_entries_written_last_and_no_stale_temporary_file(cache: Path) -> None:
    """One entry per working folder and policy: a CI job linting from a fresh checkout each run would add one per
    run for ever."""
    cache.mkdir(parents=True)
    old = [cache / f"policy-{n:032x}.json" for n in range(policycache.MAX_ENTRIES + 5)]
    for age, path in enumerate(old):
        path.write_text("{}")
        os.utime(path, (1e9 - age, 1e9 - age))  # (old[0] the newest of them)
    left = cache / ".policy-left.tmp"
    writing = cache / ".policy-writing.tmp"
    for path in (left, writing):
        path.write_text("{")
    os.utime(left, (1e9, 1e9))
    policycache.load("roce-dscp26")
    kept = set(cache.glob("policy-*.json"))
    assert len(kept) == policycache.MAX_ENTRIES and policycache.entry_path("roce-dscp26") in kept
    assert kept - {policycache.entry_path("roce-dscp26")} == set(old[:policycache.MAX_ENTRIES - 1])
    assert not left.exists() and writing.exists()
    assert isinstance(policycache.load("roce-dscp26"), policyview.Policy)


def test_the_entry_names_the_file_validated_not_the_one_named_when_written(cache: Path, tmp_path: Path) -> None:
    """A file named as a shipped profile (`roce-dscp26`) made in the working folder while the shipped one was
    validated: the entry is of the shipped file, and the next lint reads the folder's."""
    files: list[tuple[str, str]] = []
    validated = load_policy("roce-dscp26", files=files)
    (tmp_path / "work" / "roce-dscp26").write_text("name: local\nlossless:\n  dscp: [24]\n")
    policycache.write("roce-dscp26", policycache.code_identity(), validated, files)  # (as policycache.load goes on)
    again = policycache.load("roce-dscp26")
    assert (again.name, again.lossless.dscp) == ("local", [24])


def test_a_module_rewritten_to_its_size_and_mtime_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module of CODE changed in place to the same size, its mtime put back (as `touch -d` or an editor keeping
    times would), still changes the code's identity: the key reads the file's change time, which no process sets
    (and its inode: a copy of another version renamed onto it). Keyed by size and mtime alone, as Python keys its
    bytecode, this misses nothing and fails."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "losslessd", copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(policycache, "__file__", str(copy / "policycache.py"))
    monkeypatch.setattr(policycache, "_MODULE_KEYS", {})
    before = policycache.code_identity()
    for name in ("policy.py", "policyview.py", "model/__init__.py"):
        module = copy / name
        st = module.stat()
        data = module.read_bytes()
        flipped = data.replace(b"(", b"[", 1)
        assert len(flipped) == len(data) and flipped != data
        for _ in range(100_000):  # (the file system's clock moves in ticks of a few ms; a bound, not a timing)
            module.write_bytes(flipped)
            os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns))
            if module.stat().st_ctime_ns != st.st_ctime_ns:
                break
        else:  # (squashfs, FAT: no change time kept; docs/policy.md names LOSSLESSD_NO_CACHE=1 for them)
            pytest.skip(f"{tmp_path}'s file system keeps no change time: the stat key cannot see this rewrite")
        assert (module.stat().st_size, module.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
        policycache._MODULE_KEYS.clear()  # (a process asks of each module once)
        changed = policycache.code_identity()
        assert changed != before, name
        before = changed
    other = copy / "units.py"  # (another version's file renamed onto the module: same size and times, a new inode)
    st = other.stat()
    spare = tmp_path / "units.py"
    spare.write_bytes(other.read_bytes().replace(b"(", b"[", 1))
    os.utime(spare, ns=(st.st_atime_ns, st.st_mtime_ns))
    spare.replace(other)
    policycache._MODULE_KEYS.clear()
    assert policycache.code_identity() != before


def test_sha256_is_the_standard_one() -> None:
    """losslessd.sha's SHA-256 (CPython's own module) gives hashlib's digests: fingerprints and cache keys are the
    same whichever module made them (the first, FIPS 180-2's one-block example: appendix B.1)."""
    import hashlib

    from losslessd.sha import sha256

    assert sha256(b"abc").hexdigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    for size in (0, 1, 55, 56, 63, 64, 65, 1000, 100_000):
        data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
        digest = sha256(data[:10])
        digest.update(data[10:])
        assert digest.hexdigest() == hashlib.sha256(data).hexdigest() == sha256(data).hexdigest(), size


def test_blake2b_is_the_standard_one() -> None:
    """losslessd.sha's BLAKE2b (CPython's own `_blake2`, no OpenSSL load) gives hashlib's digests: the pattern
    cache's sums (losslessd.recache) are the same whichever module made them (RFC 7693, appendix A: "abc")."""
    import hashlib

    from losslessd.sha import blake2b

    assert blake2b(b"abc").hexdigest() == (
        "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
        "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
    for size in (0, 1, 127, 128, 129, 1000, 100_000):
        data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
        assert blake2b(data).hexdigest() == hashlib.blake2b(data).hexdigest(), size


def test_a_shipped_policy_is_found_with_one_listing_of_the_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    # (policy_path listed the shipped profiles twice: 0.3 M instructions of every lint)
    shipped = policyview.shipped
    listings: list[int] = []
    monkeypatch.setattr(policyview, "shipped", lambda: listings.append(1) or shipped())
    assert policyview.policy_path("roce-dscp26") == shipped()["roce-dscp26"]
    assert len(listings) == 1
    with pytest.raises(InputError, match="no policy file or shipped policy named 'nope' .shipped: .*roce-dscp26"):
        policyview.policy_path("nope")
