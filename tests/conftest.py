"""Shared fixtures: the corpus of other projects' real configs, and the repo root."""

from __future__ import annotations

from pathlib import Path

import pytest

# The device simulator's fixtures (sim_fabric, make_sim) for every test module.
pytest_plugins = ["tests.peers"]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
FIXTURES = ROOT / "tests" / "fixtures"


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
