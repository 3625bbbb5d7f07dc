"""The JSON schemas losslessd commits for editors, generated from the pydantic models that validate the
files (one source of truth): `make schemas` (python -m losslessd.schemas) rewrites them, and
tests/test_schemas.py fails when a committed file differs from what its model generates."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def generated() -> dict[str, Callable[[], dict]]:
    """Committed file (relative to the repository root) -> the function that generates its schema."""
    from .inventory import schema as inventory_schema
    from .policy import schema as policy_schema

    return {"policies/schema.json": policy_schema, "docs/inventory.schema.json": inventory_schema}


def text(schema: dict) -> str:
    return json.dumps(schema, indent=2) + "\n"


def main() -> None:
    for name, make in generated().items():
        (ROOT / name).write_text(text(make()), encoding="utf-8")
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
