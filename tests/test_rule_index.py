"""`losslessd rules` lists the rules from losslessd/data/rules.txt without importing them; the file is what the
rules say (`make schemas` rewrites it), and a file made from other sources is never printed."""

from __future__ import annotations

from losslessd.lint import index
from losslessd.lint.registry import all_rules

from .clirun import losslessd as run


def test_committed_index_is_the_generated_one():
    committed = index.INDEX.read_text(encoding="utf-8")
    assert committed == index.text(), "losslessd/data/rules.txt is stale: run `make schemas`"


def test_the_listing_is_the_registry_one_line_per_rule():
    listed = run("rules").stdout.splitlines()
    assert listed == index.lines()
    assert [line.split()[0] for line in listed] == list(all_rules())


def test_an_index_made_from_other_sources_is_not_printed(tmp_path):
    """A rule edited after the file was written (its digest is no longer the sources'): the rules themselves."""
    stale = tmp_path / "rules.txt"
    stale.write_text(index.text().replace(index.digest(), "0" * 64).replace("PFC001  ", "PFC001x "),
                     encoding="utf-8")
    assert index.listing(stale) == index.lines()
    current = tmp_path / "current.txt"
    current.write_text(index.text().replace("PFC001  ", "PFC001x "), encoding="utf-8")
    assert any(line.startswith("PFC001x ") for line in index.listing(current))  # (the file is read when current)


def test_a_missing_or_empty_index_lists_from_the_rules(tmp_path):
    assert index.listing(tmp_path / "absent.txt") == index.lines()
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert index.listing(tmp_path / "empty.txt") == index.lines()
