"""Find the shipped data folders (policies/, templates/) in a wheel or in a source checkout.

The wheel maps the top-level folders into the package (see pyproject.toml); an editable or
source-tree run falls back to the repository root.
"""

from __future__ import annotations

from pathlib import Path


def data_dir(name: str) -> Path:
    # The package's own folder, the one importlib.resources names for a package on the file system (its loader's
    # folder), without importing its readers (with skutables' and the JSON report's, 29 M instructions of a lint:
    # docs/lint-at-scale.md "Session 41, part k"). A package imported from a zip had a zip member's path here, which
    # no file can be opened from: losslessd is installed as files.
    packaged = Path(__file__).parent / name
    if packaged.is_dir():
        return packaged
    source_tree = Path(__file__).resolve().parent.parent / name
    if source_tree.is_dir():
        return source_tree
    raise FileNotFoundError(f"losslessd data folder {name!r} is missing from this installation")
