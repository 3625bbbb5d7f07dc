"""Parser golden files: tests/fixtures/raw/<platform>/<case> -> tests/fixtures/golden/<platform>/<case>.json.

A case is a file, or a folder holding one device's files. Regenerate after an intended parser
change with `make golden` (python -m tests.golden) and review the diff.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "tests" / "fixtures" / "raw"
GOLDEN = ROOT / "tests" / "fixtures" / "golden"


def cases() -> list[tuple[str, Path]]:
    out = []
    for platform_dir in sorted(p for p in RAW.iterdir() if p.is_dir()):
        for case in sorted(platform_dir.iterdir()):
            if not case.name.startswith("."):
                out.append((platform_dir.name, case))
    return out


def golden_path(platform: str, case: Path) -> Path:
    return GOLDEN / platform / f"{case.stem if case.is_file() else case.name}.json"


def render(platform: str, case: Path) -> str:
    from losslessd.model.validate import check
    from losslessd.parse import SONIC_FOLDER_FILES, parse_group

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        rel = case.relative_to(ROOT)
        if case.is_dir():
            files = [rel / f for f in SONIC_FOLDER_FILES if (rel / f).is_file()] or sorted(p for p in rel.iterdir() if p.is_file())
        else:
            files = [rel]
        device = parse_group(case.stem if case.is_file() else case.name, files, platform)
    finally:
        os.chdir(cwd)
    check(device)  # parsers build the model unchecked: every field must hold its declared type
    return json.dumps(device.model_dump(mode="json", exclude_defaults=True), indent=1, sort_keys=True) + "\n"


def main() -> int:
    for platform, case in cases():
        target = golden_path(platform, case)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(platform, case), encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
