"""Find the shipped data folders (policies/, templates/) in a wheel or in a source checkout.

The wheel maps the top-level folders into the package (see pyproject.toml); an editable or
source-tree run falls back to the repository root.
"""

from __future__ import annotations

from pathlib import Path

# The installed package's folder: what importlib.resources.files("losslessd") is for a package of files, the only kind
# whose data these folders are read from as files (importlib.resources imports zipfile and tempfile for the others:
# 10 M instructions of a lint's start).
PACKAGE = Path(__file__).parent


def data_dir(name: str) -> Path:
    packaged = PACKAGE / name
    if packaged.is_dir():
        return packaged
    source_tree = Path(__file__).resolve().parent.parent / name
    if source_tree.is_dir():
        return source_tree
    raise FileNotFoundError(f"losslessd data folder {name!r} is missing from this installation")
