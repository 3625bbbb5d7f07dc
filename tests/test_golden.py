"""Every raw parser fixture still parses to its reviewed golden model (make golden regenerates)."""

from __future__ import annotations

import pytest

from tests.golden import cases, golden_path, render

CASES = cases()


@pytest.mark.parametrize("platform,case", CASES, ids=[f"{p}/{c.name}" for p, c in CASES])
def test_golden(platform, case):
    expected = golden_path(platform, case)
    assert expected.is_file(), f"no golden file for {case}; run `make golden` and review it"
    assert render(platform, case) == expected.read_text(encoding="utf-8")
