"""Shared fixtures: the corpus of other projects' real configs, and the repo root."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

# The device simulator's fixtures (sim_fabric, make_sim) for every test module.
pytest_plugins = ["tests.peers"]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
FIXTURES = ROOT / "tests" / "fixtures"
# Fixtures that start the simulator (snmpsim processes, SSH and gNMI servers): a test using one is
# `slow` by itself. `sim` is the name every test module gives its own simulator fixture.
SPAWNING_FIXTURES = {"sim_fabric", "make_sim", "sim"}


def modules_not_listed(code: str, listed: tuple[str, ...]) -> list[str]:
    """The modules of losslessd (paths in the package) that a fresh interpreter running ``code`` loads and ``listed``
    does not name: what a cache key built of ``listed``'s bytes would miss (policycache.CODE, yamlcache.CODE)."""
    out = subprocess.run([sys.executable, "-c", f"import sys\n{code}\nprint(' '.join(m.__file__ for n, m in "
                          "sys.modules.items() if n.split('.')[0] == 'losslessd'))"], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout.split()
    package = ROOT / "losslessd"
    return sorted({Path(f).relative_to(package).as_posix() for f in out} - set(listed))



def pytest_configure(config):
    """The suite never writes the runner's own cache: the `lint` processes it starts keep their validated
    policies (losslessd/policycache.py) in a folder of this run, so two checkouts' runs never share entries."""
    cache = tempfile.mkdtemp(prefix="losslessd-test-cache-")
    os.environ["XDG_CACHE_HOME"] = cache
    atexit.register(shutil.rmtree, cache, True)
    # ... so matplotlib's font cache (under it) is cold in every run, and its first plot ran `fc-list` to list the
    # system's fonts (font_manager._get_fontconfig_fonts), a process the fast loop refuses. The plots use matplotlib's
    # own DejaVu fonts; MPL_IGNORE_SYSTEM_FONTS (font_manager.findSystemFonts) skips that scan and keeps them the same
    # on every machine.
    os.environ["MPL_IGNORE_SYSTEM_FONTS"] = "1"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SPAWNING_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _fast_loop_spawns_nothing(request, monkeypatch):
    """`make test-fast` (-m "not slow") is the inner loop: a test in it that starts a process is
    marked wrongly, and says so instead of quietly making the loop slow."""
    if request.config.option.markexpr != "not slow" or request.node.get_closest_marker("slow"):
        return

    def refuse(self, args, *rest, **kwargs):
        pytest.fail(f"{request.node.nodeid} starts a process ({args!r}): mark it @pytest.mark.slow "
                    "(the `slow` marker is for tests that spawn processes or build wheels)")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


@pytest.fixture(scope="session")
def corpus() -> Path:
    """../shared/corpus (real files written by SONiC and AVD); skip when this checkout lacks it."""
    if not (CORPUS / "SOURCES.md").is_file():
        pytest.skip(f"real-world corpus not found at {CORPUS} (it sits beside the repository in CI)")
    return CORPUS


@pytest.fixture(autouse=True)
def _run_from_root(monkeypatch):
    """Reports show paths relative to the working directory; tests run from the repo root."""
    monkeypatch.chdir(ROOT)


@pytest.fixture(autouse=True)
def _own_lock_folder(tmp_path, monkeypatch):
    """Device locks in a folder of the test's own, never the machine's /tmp/losslessd-locks (another user's tune
    there, or a lock file of an earlier run, would decide a test; a test's would stay behind for the operators)."""
    monkeypatch.setenv("LOSSLESSD_LOCK_DIR", str(tmp_path / "losslessd-locks"))


@contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A disk of ``size`` (tmpfs, `16k`) mounted at ``where`` (made here) that a test fills; unmounted afterwards (-l:
    also with a file left open). The test is skipped where mount is refused (not root)."""
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                      capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (not root?)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=True)
