"""The command line's cache of validated policies: a lint whose policy pydantic validated before reads it back as
plain data (losslessd.policyview) and imports neither losslessd.policy nor pydantic's models for it.

Kept only where it cannot be wrong (docs/lint-at-scale.md, "Session 41, part a"): the entry is used when the SHA-256
of every file of the `extends` chain (the bytes the policy was read from, hashed as they were read), the working
folder and reference, the file size limit and the validating code (losslessd's modules policy.py reads through, each
told by its file: _module_key; the Python, pydantic, pydantic-core, PyYAML and re2 installed) are all the ones it was
written under; it is JSON (no pickle: nothing in it runs) in a regular file of the user's own that nobody else may
write. Anything else, and `LOSSLESSD_NO_CACHE` or `lint --no-policy-cache`, validates again. A policy that fails
validation is never written: its error is reported every time, as before. The library's ``load_policy`` never writes
here. The MAX_ENTRIES entries written last are kept.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import limits
from .errors import InputError
from .gcpause import gc_paused
from .policyview import policy_path, view
from .resources import data_dir
from .sha import sha256

ENV_NO_CACHE = "LOSSLESSD_NO_CACHE"
FORMAT = 1  # (the entry's layout; the code's identity covers the rest)
# What decides the policy a file validates to: losslessd.policy and the modules of losslessd it imports, then or
# when it first reads YAML (tests/test_policy_cache.py checks the list against what validating the shipped profiles
# loads) ...
CODE = ("__init__.py", "policy.py", "policyview.py", "docpos.py", "yamlread.py", "limits.py", "units.py", "userre.py",
        "errors.py", "printable.py", "lazyre.py", "gcpause.py", "model/__init__.py", "records.py", "resources.py")
# ... and the libraries it validates with.
LIBRARIES = ("pydantic", "pydantic_core", "yaml", "re2")
MAX_ENTRY_BYTES = 16 * limits.MIB  # (a policy of a few KB; anything near this is no entry of ours)
# Entries kept, the most recently written (one per working folder and policy: a CI job linting from a fresh
# checkout adds one per run); an entry is about 2 KB (roce-dscp26's, measured), so at most a few hundred KB.
MAX_ENTRIES = 100
STALE_TEMP_S = 3600  # (a writer holds its temporary file for one write: one older was left by a killed lint)


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/losslessd, else ~/.cache/losslessd (XDG Base Directory: a relative $XDG_CACHE_HOME is
    ignored)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return Path(base if os.path.isabs(base) else os.path.join(os.path.expanduser("~"), ".cache")) / "losslessd"


def disabled() -> bool:
    return os.environ.get(ENV_NO_CACHE, "") not in ("", "0")


def code_identity() -> str:
    """A digest of what validates a policy here (CODE's files, LIBRARIES' installed files, the interpreter), of the
    folder its shipped profiles are read from (a source tree's and a wheel's of the same code differ: `extends:
    roce-dscp26` names another file) and of the file size limit a policy is read within."""
    return identity(CODE, LIBRARIES, f"{FORMAT}\0{limits.max_file_bytes()}\0{data_dir('policies')}")


def identity(code: tuple[str, ...], libraries: tuple[str, ...], extra: str) -> str:
    """A digest of ``extra``, the interpreter, losslessd's modules ``code`` (paths in the package: each file's
    `_module_key`) and the installed ``libraries`` (their file's path, size, mtime and inode)."""
    digest = sha256(f"{sys.version}\0{sys.executable}\0{extra}\0".encode())
    for name in code:
        digest.update(name.encode() + b"\0" + _module_key(name))
    for library in libraries:
        digest.update(_library_key(library))
    return digest.hexdigest()


_LIBRARY_KEYS: dict[str, bytes] = {}


def _library_key(library: str) -> bytes:
    """What tells the installed ``library`` (its file's path, size, mtime and inode), asked once a process as
    _module_key is (the policy's and the topology's keys both name PyYAML: finding it again was 0.3 M instructions)."""
    found = _LIBRARY_KEYS.get(library)
    if found is None:
        spec = importlib.util.find_spec(library)
        origin = spec.origin if spec is not None else None
        st = os.stat(origin) if origin else None
        found = _LIBRARY_KEYS[library] = \
            f"{library}\0{origin}\0{st and (st.st_size, st.st_mtime_ns, st.st_ino)}\0".encode()
    return found


_MODULE_KEYS: dict[str, bytes] = {}


def _module_key(name: str) -> bytes:
    """What tells losslessd's module ``name`` changed, asked once a process (the policy's and the topology's keys
    share most of theirs): its file's size, modification and change times in ns, inode and device. Any write to
    the file, a rename onto it or a restored mtime (os.utime, touch -d, cp -p) moves its change time, which no
    process sets; Python itself runs a module's cached bytecode while the source's size and mtime in whole seconds
    are unchanged, a looser test than this (hashing the bytes instead cost 6.5 M instructions a lint:
    docs/lint-at-scale.md, "Session 43, part b")."""
    found = _MODULE_KEYS.get(name)
    if found is None:
        st = os.stat(Path(__file__).parent / name)
        found = _MODULE_KEYS[name] = \
            f"{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0{st.st_dev}".encode()
    return found


def entry_path(ref: str) -> Path:
    """The entry of ``ref`` linted from the working folder (one per pair: a newer policy replaces the older)."""
    key = sha256(f"{os.getcwd()}\0{ref}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cache_dir() / f"policy-{key}.json"


def own_file(path: Path) -> bytes | None:
    """The bytes of ``path`` when it is a regular file (no link) of this user's that no one else may write."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with open(fd, "rb") as file:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022 \
                or st.st_size > MAX_ENTRY_BYTES:
            return None
        return file.read(MAX_ENTRY_BYTES + 1)


def _unchanged(files: Any) -> bool:
    """Whether every (path, SHA-256) of ``files`` still reads to those bytes, and the paths still name as many
    files: the same bytes through a link to another file of the chain are a loop (`extends forms a loop`)."""
    if not isinstance(files, list) or not files:
        return False
    if not all(isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item) for item in files):
        return False
    if len({os.path.realpath(path) for path, _ in files}) != len(files):  # (as policy._load_raw tells a loop)
        return False
    for item in files:
        try:
            if sha256(limits.read_bytes(item[0])).hexdigest() != item[1]:
                return False
        except (InputError, OSError, ValueError):
            return False
    return True


def read(ref: str, identity: str) -> Any:
    """The view of ``ref``'s cached policy, or None where there is none it is sure of."""
    try:
        raw = own_file(entry_path(ref))
        if raw is None:
            return None
        entry = json.loads(raw)
        if not (isinstance(entry, dict) and entry.get("format") == FORMAT and entry.get("code") == identity
                and entry.get("cwd") == os.getcwd() and entry.get("ref") == ref
                and entry.get("sum") == data_sum(entry.get("policy")) and _unchanged(entry.get("files"))
                and entry["files"][0][0] == str(policy_path(ref))):  # (the file ``ref`` names now was validated)
            return None
        return view(entry["policy"])
    except (OSError, ValueError, TypeError, KeyError, RecursionError, InputError):
        return None


def write(ref: str, identity: str, policy: Any, files: list[tuple[str, str]]) -> None:
    """Keep ``policy`` (validated from ``files``) for the next lint; where the cache cannot be written (a
    read-only home, a full disk), nothing is kept and nothing is said: the next lint validates again."""
    try:
        data = policy.model_dump()
        entry = {"format": FORMAT, "code": identity, "cwd": os.getcwd(), "ref": ref,
                 "files": [list(f) for f in files], "policy": data, "sum": data_sum(data)}
        text = json.dumps(entry, allow_nan=False).encode("utf-8", "surrogateescape")
        write_entry(entry_path(ref), text)
    except (OSError, ValueError, TypeError):
        return


def write_entry(path: Path, text: bytes) -> None:
    """``text`` as the cache entry ``path`` (its name `<kind>-<key>.json`): written 0600 through a temporary file and a
    rename, so that a reader sees the old entry or the new one, never a part; then the MAX_ENTRIES entries of its
    kind written last are kept. OSError where the cache cannot be written."""
    import tempfile  # (only to write: a lint that reads its entries back imports none)

    kind = path.name.split("-", 1)[0]
    folder = cache_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{kind}-", suffix=".tmp")  # (0600)
    try:
        with open(fd, "wb") as file:
            file.write(text)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
    _prune(folder, kind)


def _prune(folder: Path, kind: str) -> None:
    """Removes all but the MAX_ENTRIES entries of ``kind`` written last, and temporary files a killed lint left."""
    entries, now = [], time.time()
    with os.scandir(folder) as found:
        for item in found:
            try:
                written = item.stat(follow_symlinks=False).st_mtime
                if item.name.startswith(f"{kind}-") and item.name.endswith(".json"):
                    entries.append((written, item.path))
                elif item.name.startswith(f".{kind}-") and item.name.endswith(".tmp") and now - written > STALE_TEMP_S:
                    os.unlink(item.path)
            except OSError:  # (another lint pruned it first)
                continue
    for _, path in sorted(entries)[:-MAX_ENTRIES]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def data_sum(data: Any) -> str:
    """A digest of an entry's data (a validated policy, yamlcache's document): an entry damaged on the disk (a byte
    flipped) is no policy or document."""
    return sha256(json.dumps(data, sort_keys=True, allow_nan=False).encode()).hexdigest()


def validator() -> Callable[..., Any]:
    """losslessd.policy's load_policy, imported with the collector paused: pydantic's validators and the models it
    builds live as long as the process, and collections while they are made scan them again and again (as
    cli.main._load imports a command)."""
    with gc_paused():
        from .policy import load_policy
    return load_policy


def load(ref: str, *, cache: bool = True) -> Any:
    """The policy ``ref`` names, for a command line lint: the cached view when it is sure, else validated by
    losslessd.policy (its errors as ever) and kept. ``cache=False`` (`--no-policy-cache`) or LOSSLESSD_NO_CACHE:
    validated, nothing read or written."""
    if not cache or disabled():
        return validator()(ref)
    try:
        identity = code_identity()
    except (OSError, ValueError, ImportError):
        identity = None
    hit = read(ref, identity) if identity else None
    if hit is not None:
        return hit
    files: list[tuple[str, str]] = []
    policy = validator()(ref, files=files)
    if identity:
        write(ref, identity, policy, files)
    return policy
