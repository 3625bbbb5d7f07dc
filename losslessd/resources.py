"""Find the shipped data folders (policies/, templates/) in a wheel or in a source checkout.

The wheel maps the top-level folders into the package (see pyproject.toml); an editable or
source-tree run falls back to the repository root.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_dir(name: str) -> Path:
    packaged = resources.files("losslessd") / name
    if packaged.is_dir():
        return Path(str(packaged))
    source_tree = Path(__file__).resolve().parent.parent / name
    if source_tree.is_dir():
        return source_tree
    raise FileNotFoundError(f"losslessd data folder {name!r} is missing from this installation")
