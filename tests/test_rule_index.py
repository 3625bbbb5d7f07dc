"""`losslessd rules` lists the rules from losslessd/data/rules.txt without importing them; the file is what the
rules say (`make schemas` rewrites it), and a file made from other sources is never printed."""

from __future__ import annotations

import compileall
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from losslessd.lint import index, registry
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
    current.write_text(index.text([line.replace("PFC001  ", "PFC001x ") for line in index.lines()]), encoding="utf-8")
    assert any(line.startswith("PFC001x ") for line in index.listing(current))  # (the file is read when current)


def test_a_missing_or_empty_index_lists_from_the_rules(tmp_path):
    assert index.listing(tmp_path / "absent.txt") == index.lines()
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert index.listing(tmp_path / "empty.txt") == index.lines()


def test_a_damaged_index_lists_from_the_rules(tmp_path):
    """The sources' digest intact, the list below it cut at a line's end or mid-line, or overwritten with bytes: the
    list is the rules' (a cut file printed a short list, a control character reached the terminal), exit 0."""
    whole = index.text()
    cut = tmp_path / "cut.txt"
    for damaged in (whole[:whole.index("PFC001")], whole[:whole.index("PFC001") + 9],
                    whole.replace("PFC001  ", "\x1b[2J\x00  ", 1)):
        cut.write_text(damaged, encoding="utf-8")
        assert index.listing(cut) == index.lines()


@pytest.mark.parametrize("kind", ["fifo", "char-device", "folder", "too-big", "link-loop"])
def test_an_index_that_is_no_file_to_read_lists_from_the_rules(kind, tmp_path):
    """A FIFO in the index's place hung `losslessd rules` (read_text blocked), a link to /dev/zero filled the memory;
    each is read as input is (limits.read_text), refused, and the rules themselves give the list."""
    path = tmp_path / "rules.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "char-device":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    elif kind == "too-big":
        path.write_text(index.text() + "#" * (64 * 1024), encoding="utf-8")
    else:
        path.symlink_to(path)
    assert index.listing(path) == index.lines()


def test_each_rule_is_registered_by_its_family_module():
    """A run imports family XYZ's module for a rule XYZnnn it selects (lint.registry.rules_of): a rule written in
    another family's module would be missing from the run that selects it."""
    for code, rule in all_rules().items():
        own = "losslessd.lint.internal" if code == "SYS900" else f"losslessd.rules.{code[:3].lower()}"
        assert rule.__module__ == own


def test_the_catalogue_a_selection_reads_is_the_registry():
    """--select and --ignore are read against the rule index (no family imported): its codes and names are those the
    families register."""
    assert registry.catalogue() == {code: rule.name for code, rule in all_rules().items()}


_SOURCELESS = """
import json, sys
from losslessd.lint import index, registry
print(json.dumps([index.listing(), sorted(registry.all_rules()), [r.code for r in registry.select(["ecn-after-pfc"])]]))
"""


@pytest.mark.slow
def test_an_install_of_compiled_modules_alone_lists_and_runs_every_rule(tmp_path):
    """A package installed as .pyc files without their sources (compileall -b, sources removed, as frozen or
    stripped installs ship it): the families were found by their .py names, so a full lint ran SYS900 alone, and the
    index's digest read the missing sources (`rules` and `--select` ended in an internal error, exit 3). An editor's
    lock file beside them (`.#pfc.py`) was imported as a family: an internal error too."""
    package = tmp_path / "losslessd"
    shutil.copytree(index.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in (package / "rules", package / "lint"):
        assert compileall.compile_dir(folder, quiet=1, legacy=True)
        for source in folder.glob("*.py"):
            source.unlink()
    (package / "rules" / ".#pfc.py").symlink_to("user@host.1234:1700000000")  # (an editor's lock: no module)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", _SOURCELESS], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    listed, codes, selected = json.loads(out.stdout)
    assert listed == index.lines() and codes == list(all_rules()) and selected == ["ECN004"]


_READS = """
import sys
from losslessd.lint import registry
reads = []
sys.addaudithook(lambda event, args: reads.append(args[0]) if event == "open" and "rules" in str(args[0]) else None)
registry.lookup("PFC001"), registry.select(["ecn-after-pfc"])  # (the first: the index, then two families imported)
first = len(reads)
for _ in range(50):
    registry.lookup("PFC001"), registry.select(["ecn-after-pfc"])
print(first, len(reads))
"""


@pytest.mark.slow
def test_the_catalogue_is_read_once_a_process():
    """`pull` names the rule of each device's issue (registry.lookup), an API caller selects for each lint: each read
    the index and the rule sources for its digest again (0.6 ms: 1.2 s of CPU for a pull of 2,000 failed switches)."""
    out = subprocess.run([sys.executable, "-c", _READS], cwd=index.PACKAGE.parent, capture_output=True, text=True,
                         timeout=120, check=True)
    first, total = map(int, out.stdout.split())
    assert first > 0 and total == first, out.stdout


@pytest.mark.parametrize("code", ["QQQ001", "ZZZ999", "PFc001", "PF001", "PFC0011", "PFC01", "ÀBC001", "ＰFC001",
                                  "PFC٠٠١", "PFC00a", "PFC 01", "", "pfc001", "PFC001\n", "PFCX01"])
def test_a_rule_code_is_three_capitals_and_three_digits(code):
    # (the check was `re.fullmatch(r"[A-Z]{3}\d{3}", code)`: it answers as `[A-Z]{3}[0-9]{3}` does, compiling none;
    # another script's digits, which `\d` took, are refused, as units.is_digits refuses them everywhere)
    class Probe(registry.Rule):
        pass

    Probe.code = code
    try:
        registry.register(Probe)
        taken = True
        del registry._REGISTRY[code]
    except ValueError:
        taken = False
    assert taken == (re.fullmatch(r"[A-Z]{3}[0-9]{3}", code) is not None)
