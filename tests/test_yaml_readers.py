"""docpos composes YAML on libyaml's parser where PyYAML has it (5-10 times as fast as PyYAML's pure-Python
reader: bench/yaml_read.py): the same nodes, at the same lines, as PyYAML's own SafeLoader gives, on every YAML
the repository and the shared corpus hold and on edits of them; and errors still name the file and a line.

Compared per node: kind, tag, value and scalar style, and the line and column where it starts (the only mark
losslessd reads). Not compared: flow_style (libyaml says False where PyYAML says None for an indentless block
sequence) and end marks; nor, in edited documents, the marks of empty plain scalars, which libyaml puts at the
next token where PyYAML puts them after the `:` (`{a:` then `}` on the next line; `?` at the end of a file)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
import yaml

from losslessd import yamlread
from losslessd.errors import InputError
from tests.conftest import CORPUS, ROOT

pytestmark = pytest.mark.skipif(yamlread.CParser is None, reason="this PyYAML was built without libyaml")

# Every YAML in the repository, the JSON trees NVUE's reader composes as YAML, and the corpus's YAML and NVUE files.
FILES = sorted(
    {ROOT / name for name in subprocess.run(["git", "ls-files", "*.yaml", "*.yml"], cwd=ROOT, capture_output=True,
                                            text=True, check=True).stdout.split()}
    | set((ROOT / "tests").glob("**/nvidia_cumulus/**/*.json"))
    | {p for pattern in ("**/*.yaml", "**/*.yml", "**/nvidia_cumulus/**/*.json") for p in CORPUS.glob(pattern)})
EDITS = ["&a ", "*a", "[", "]", "{", "}", ": ", ", ", "- ", "? ", "\n", "  ", "\t", "!!str ", "! ", "<<: ", "'",
         '"', "|\n", ">-\n", "%YAML 1.1\n", "---\n", "...\n", "# c", "null", "~", "\u2028", "\x85", "#"]


def _nodes(node: yaml.Node | None, *, empty_marks: bool = True) -> list[tuple]:
    """The node graph in document order, one tuple per node."""
    out: list[tuple] = []
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        marked = empty_marks or not (isinstance(n, yaml.ScalarNode) and n.value == "" and n.style is None)
        mark = (n.start_mark.line, n.start_mark.column) if marked else None
        if isinstance(n, yaml.ScalarNode):
            out.append(("scalar", n.tag, n.value, n.style, mark))
            continue
        kids = [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else list(n.value)
        out.append((type(n).__name__, n.tag, len(kids), mark))
        stack.extend(reversed(kids))
    return out


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's own loader, resolving plain scalars as docpos does (YAML 1.2's readings where YAML 1.1 differs)."""

    yaml_implicit_resolvers = yamlread._Composer.yaml_implicit_resolvers


def _pyyaml(text: str) -> yaml.Node | None:
    loader = _SafeLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_libyaml_composes_the_nodes_pyyaml_does(path):
    text = path.read_text(encoding="utf-8")
    expected = _nodes(_pyyaml(text))
    assert _nodes(yamlread.compose(text, str(path))) == expected  # libyaml's parser (the default here)
    assert _nodes(yamlread.compose(text, str(path), yamlread._Loader)) == expected  # the pure-Python fallback


def test_edited_documents_read_alike():
    """Random edits of the small files read as PyYAML reads them: the same nodes, or the same error (a small
    document libyaml refuses is read again by PyYAML: it reads `{a:, b}`, which libyaml refuses). The one
    difference left, rare: libyaml reads some documents PyYAML refuses (a tab as a separator, which YAML 1.2
    allows; a comment right after `>-`; `?` in a flow mapping)."""
    rnd = random.Random(23)
    small = [p.read_text(encoding="utf-8") for p in FILES if p.stat().st_size < 8000]
    outcomes = {"read": 0, "refused": 0, "libyaml only": 0}
    for _ in range(400):
        lines = rnd.choice(small).split("\n")
        for _ in range(rnd.randint(1, 4)):
            i = rnd.randrange(len(lines))
            cut = rnd.randint(0, len(lines[i]))
            lines[i] = lines[i][:cut] + rnd.choice(EDITS) + lines[i][cut:]
        text = "\n".join(lines)
        try:
            expected: object = _nodes(yamlread.compose(text, "e.yaml", yamlread._Loader), empty_marks=False)
        except InputError as exc:
            expected = str(exc)
        try:
            got: object = _nodes(yamlread.compose(text, "e.yaml"), empty_marks=False)
        except InputError as exc:
            got = str(exc)
        if isinstance(expected, str) and not isinstance(got, str):
            outcomes["libyaml only"] += 1
            continue
        assert got == expected, text
        outcomes["refused" if isinstance(got, str) else "read"] += 1
    assert outcomes["read"] > 100 and outcomes["refused"] > 100, outcomes  # the edits exercised both sides
    assert outcomes["libyaml only"] < 20, outcomes


def test_a_large_document_errs_in_libyamls_words_without_a_reread():
    """Above REREAD_CHARS, libyaml's error stands (PyYAML would take up to a minute a MiB to say it its way)."""
    body = "".join(f"key{i}: value\n" for i in range(yamlread.REREAD_CHARS // 10))
    small, large = "a: b: c\n", body + "a: b: c\n"
    with pytest.raises(InputError, match="mapping values are not allowed here") as exc:
        yamlread.compose(small, "s.yaml")
    assert exc.value.line == 1
    with pytest.raises(InputError, match="mapping values are not allowed in this context") as exc:
        yamlread.compose(large, "l.yaml")
    assert exc.value.file == "l.yaml" and exc.value.line == large.count("\n")


@pytest.mark.parametrize("text,line,words", [
    ("a: [1,\n  2\n", 3, "invalid YAML"),
    ("a: 1\n b: 2\n", 2, "invalid YAML"),
    ("a: *nowhere\n", 1, "undefined alias"),
    ("a: &x 1\nb: &x 2\n", 2, "the anchor &x is defined twice (first at line 1): rename this one"),
    ("---\na: 1\n---\nb: 2\n", 3, "but found another document"),
    ("a: 1\x07\n", 1, "special characters are not allowed"),
    ("a: " + "[" * 70 + "]" * 70 + "\n", 1, "nested deeper than"),
    ("a: " + "[" * 100_000 + "\n", 1, "nested deeper than 64 levels"),  # (libyaml stops at 1,000 by itself)
])
def test_errors_name_file_and_line_on_either_parser(text, line, words):
    for composer in (yamlread._CComposer, yamlread._Loader):
        with pytest.raises(InputError) as exc:
            yamlread.compose(text, "p.yaml", composer)
        assert exc.value.file == "p.yaml" and exc.value.line == line and words in exc.value.message, composer


def test_deep_nesting_is_no_recursion():
    """The composer walks with a list, not the stack: nesting up to the limit reads with a small recursion limit."""
    depth = yamlread.MAX_NESTING - 1
    text = "a: " + "[" * depth + "]" * depth + "\n"
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # PyYAML's recursive composer needs ~4 frames a level (2 for the walk here)
    try:
        node = yamlread.compose(text, "n.yaml")
    finally:
        sys.setrecursionlimit(saved)
    assert len(_nodes(node)) == 2 + depth


def test_a_tree_skips_the_alias_walk_and_a_graph_does_not(monkeypatch):
    """_check_graph (alias expansion) runs only when the document has aliases: a tree's size and depth are the
    composer's own counts."""
    walked = []
    monkeypatch.setattr(yamlread, "_check_graph", lambda node, path: walked.append(path))
    yamlread.compose("a: [1, 2]\nb: {c: d}\n", "tree.yaml")
    yamlread.compose("a: &x [1, 2]\nb: *x\n", "graph.yaml")
    assert walked == ["graph.yaml"]


@pytest.mark.parametrize("composer", [None, yamlread._Loader], ids=["libyaml", "pyyaml"])
def test_yaml_1_1_octal_base_60_and_dates_are_the_text_written(composer):
    """YAML 1.2's core schema (10.3.2) reads `026` as 26 and `1:40`, `0b11` and dates as text; PyYAML's YAML 1.1 read
    the DSCP 22, 100 and 3, and a MAC address of digits as a number (round 13). The forms both read alike stay."""
    text = ("[026, -017, 00, 1:40, 1:30.5, 0b11, 10:20:30:40:50:60, 2026-12-04, 2026-12-04T10:00:00Z, "
            "0, 26, -7, 0x1A, 1_000, 1.5, 012.5, .inf, 0:26, 08, 1e3, true, on]")
    data = yamlread._Loader("").construct_document(yamlread.compose(text, "t.yaml", composer))
    assert data == ["026", "-017", "00", "1:40", "1:30.5", "0b11", "10:20:30:40:50:60", "2026-12-04",
                    "2026-12-04T10:00:00Z", 0, 26, -7, 26, 1000, 1.5, 12.5, float("inf"), "0:26", "08", "1e3", True,
                    True]
    for tagged in ("!!int 026", "!!int 0b11", "!!float 1:40.5", "!!int 1:40"):  # asked for by a tag: refused
        with pytest.raises(yaml.YAMLError, match="YAML 1.1 and not in YAML 1.2"):
            yamlread._Loader("").construct_document(yamlread.compose(f"[{tagged}]", "t.yaml", composer))


@pytest.mark.parametrize("key, words", [
    ("0x" + "f" * 4000, "an integer of 4002 digits (at most 32 are read)"),
    ("1" * 5000, "an integer of 5000 digits (at most 32 are read)"),
    ('!!int "1' + ":1" * 20_000 + '"', "is an octal, binary or base-60 number in YAML 1.1"),
])
def test_a_long_number_key_is_refused_at_its_line_as_its_value_would_be(key, words):
    """Session 42, review r1: the key reader of round 22 (a key YAML reads as a number: its line, its duplicates) read
    a number key with PyYAML's own reader, not the loader's: `? 0x` and 4,000 hex digits became a number whose str()
    raised ValueError out of load_yaml (a traceback for a hostile inventory), and an `!!int` in base 60 was read at
    all. A key is read within the same limits as a value: the loader's error, at the key's line."""
    text = f"hosts:\n  leaf1: {{}}\n  ? {key}\n  : {{}}\n"
    with pytest.raises(InputError) as exc:
        yamlread.load_yaml("inv.yaml", text)
    assert exc.value.file == "inv.yaml" and exc.value.line == 3 and words in exc.value.message


# Where YAML 1.1's c-printable changes (its specification, 5.1 "Character Set": #x9 | #xA | #xD | [#x20-#x7E] | #x85
# | [#xA0-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]), beside every ASCII character.
_EDGES = (0x84, 0x85, 0x86, 0x9F, 0xA0, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x10FFFF)


@pytest.mark.parametrize("point", [*range(128), *_EDGES])
def test_a_character_is_refused_where_pyyaml_refuses_it(point):
    """compose skips PyYAML's check of the characters for ASCII text without controls (yamlread._ASCII_NOT_PRINTABLE):
    the verdict on every ASCII character, and at each edge of the printable ranges, is still PyYAML's own."""
    text = f"a: x{chr(point)}y\n"
    try:
        yaml.reader.Reader(text)
    except yaml.reader.ReaderError:
        refused = True
    else:
        refused = False
    for composer in (yamlread._CComposer, yamlread._Loader):
        try:
            yamlread.compose(text, "p.yaml", composer)
        except InputError as exc:
            assert "special characters are not allowed" in exc.message or not refused, exc.message
            said = "special characters are not allowed" in exc.message
        else:
            said = False
        assert said == refused, (hex(point), composer)


_COMPILED = """
import json, os, sys
from losslessd.cli.main import main
sys.argv = ["losslessd", "lint", sys.argv[1], "--policy", "roce-dscp26"]
try:
    main()
except SystemExit:
    pass
yaml = sys.modules.get("yaml")  # (a lint whose policy and topology both come from the caches imports no PyYAML)
check = yaml.reader.Reader.NON_PRINTABLE if yaml else None
print(json.dumps({"compiled": check is not None and (type(check).__name__ == "Pattern" or "search" in vars(check))}),
      file=sys.stderr)
"""


@pytest.mark.slow
@pytest.mark.parametrize("path", ["examples/fabric", "tests/fixtures/raw/nvidia_cumulus/startup.yaml"])
def test_a_lint_of_ascii_yaml_compiles_no_check_of_the_characters(path, tmp_path):
    """PyYAML compiled its reader's check of the characters when imported (57 M instructions, 6 % of a lint of the
    example fabric); yamlread imports it with that pattern compiled when used, and ASCII text never uses it: a lint
    of the example (topology.yaml; the policy validated, then read from the cache) and of an NVUE startup.yaml."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _COMPILED, path], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120, check=False)
        assert json.loads(proc.stderr.strip().splitlines()[-1]) == {"compiled": False}, proc.stderr
