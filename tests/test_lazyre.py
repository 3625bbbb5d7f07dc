"""Patterns compiled on first use (losslessd/lazyre.py): nothing is compiled before, the answers are re's after, and
every lazy pattern a module of losslessd holds compiles (a typo in one would otherwise show only on the input that
first uses it)."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re

import pytest

import losslessd
from losslessd.lazyre import _Lazy, lazy


def test_nothing_is_compiled_before_the_first_use():
    pattern = lazy(r"(unclosed")
    assert pattern.pattern == "(unclosed"  # (its text is there: patterns are built from others' text)
    with pytest.raises(re.error):
        pattern.search("x")


def test_a_lazy_pattern_answers_as_the_compiled_one():
    text = "Ethernet0 pfc 3,4\nEthernet4 pfc 3\n"
    for flags in (0, re.M, re.I | re.M):
        mine, theirs = lazy(r"^(?P<port>\S+) pfc (\d)", flags), re.compile(r"^(?P<port>\S+) pfc (\d)", flags)
        assert mine.search(text).groups() == theirs.search(text).groups()
        assert mine.findall(text) == theirs.findall(text)
        assert [m.span() for m in mine.finditer(text)] == [m.span() for m in theirs.finditer(text)]
        assert mine.sub(r"\g<port>", text) == theirs.sub(r"\g<port>", text)
        assert mine.split(text) == theirs.split(text)
        assert (mine.match(text) is None) == (theirs.match(text) is None) and mine.fullmatch(text) is None
        assert (mine.flags, mine.groups, mine.groupindex) == (theirs.flags, theirs.groups, theirs.groupindex)
    # After the first use its methods are the compiled pattern's own: no lookup through the lazy object's class.
    assert isinstance(mine.match.__self__, re.Pattern)  # type: ignore[attr-defined]


def test_an_unknown_attribute_is_refused():
    with pytest.raises(AttributeError):
        lazy("x").no_such_thing  # type: ignore[attr-defined]  # noqa: B018


def _modules():
    for info in pkgutil.walk_packages(losslessd.__path__, "losslessd."):
        if info.name.endswith("__main__"):  # (running it is the command line)
            continue
        try:
            yield importlib.import_module(info.name)
        except ImportError:  # (an optional extra that is not installed: such a module holds no lazy pattern)
            continue


def _lazies(module) -> list[tuple[str, _Lazy]]:
    """The lazy patterns ``module`` holds: its names' and, one level down, its tuples', lists' and dicts' members
    (limits._HIGH_RUN, platforms._SHELL_REFUSALS, SONiC's _OTHER_DBS)."""
    out = []
    for name, value in vars(module).items():
        members = value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ()
        for member in (value, *members, *(m for v in members if isinstance(v, tuple) for m in v)):
            if isinstance(member, _Lazy):
                out.append((name, member))
    return out


def test_every_lazy_pattern_of_losslessd_compiles():
    found = [(module.__name__, name, value) for module in _modules() for name, value in _lazies(module)]
    # (330 at session 39: every platform's readers', the tuner's, the daemon's and monitor's, the renderer's; a scan
    # that found none would prove nothing)
    assert len(found) >= 330
    assert {name.split(".")[1] for name, _, _ in found} >= {"parse", "tune", "monitor", "daemon", "render", "paths"}
    for module, name, value in found:
        assert isinstance(value.search.__self__, re.Pattern), f"{module}.{name}"


# What a lazy pattern cannot stand in for (lazy's docstring): re's module functions and isinstance take only a str or
# a compiled pattern, and a use at import time would compile it then. Such a use shows only on the input whose path
# reaches it (an internal error there), so the sources are read for it.
_RE_FUNCTIONS = frozenset({"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer",
                           "escape"})


def _misused(module, lazy_names: set[str]) -> list[str]:
    """The lines of ``module`` that pass one of ``lazy_names`` to re or isinstance, or use one at import."""
    tree = ast.parse(inspect.getsource(module))
    out = []

    def visit(node, in_function: bool) -> None:
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        if isinstance(node, ast.Call):
            func = node.func
            to_re = (isinstance(func, ast.Attribute) and func.attr in _RE_FUNCTIONS
                     and isinstance(func.value, ast.Name) and func.value.id == "re")
            checks_type = isinstance(func, ast.Name) and func.id in ("isinstance", "issubclass")
            for arg in node.args if to_re or checks_type else ():
                if isinstance(arg, ast.Name) and arg.id in lazy_names:
                    out.append(f"{module.__name__}:{node.lineno}: {ast.unparse(node)}")
        if (not inside and isinstance(node, ast.Attribute) and node.attr != "pattern"
                and isinstance(node.value, ast.Name) and node.value.id in lazy_names):
            out.append(f"{module.__name__}:{node.lineno}: {ast.unparse(node)} at import")
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(tree, False)
    return out


def test_no_lazy_pattern_is_given_to_re_or_isinstance_or_used_at_import():
    misused = []
    for module in _modules():
        names = {name for name, value in vars(module).items() if isinstance(value, _Lazy)}
        if names:
            misused += _misused(module, names)
    assert not misused, "\n".join(misused)


# Session 43 (part a): the modules every lint imports compile no pattern at import (each is about 0.8 M
# instructions): each is `lazyre.lazy`, so it is compiled where it is first used, within the command line's lint,
# whose kept programs (losslessd.recache) then stand for re's compiling; or it is a plain `startswith` test. Read from
# the sources: a module-level `re.compile` call, wherever it stands (a tuple's or a dict's member too).
_SHARED = ("limits", "units", "capture", "docpos", "platforms", "printable", "fabric", "sorting", "headroom",
           "lint.registry", "parse", "parse.sonic.converter", "parse.sonic.configdb")


def _compiled_at_import(module) -> set[str]:
    found: set[str] = set()

    def visit(node) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compile"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            found.add(ast.get_source_segment(source, node.args[0]).replace("\n", "").replace("  ", " ")
                      if node.args else "")
        for child in ast.iter_child_nodes(node):
            visit(child)

    source = inspect.getsource(module)
    visit(ast.parse(source))
    return {" ".join(text.split()) for text in found}


@pytest.mark.parametrize("name", _SHARED)
def test_shared_modules_compile_no_pattern_at_import(name):
    assert _compiled_at_import(importlib.import_module(f"losslessd.{name}")) == set()


def _parser_modules():
    return [m for m in _modules() if m.__name__.startswith("losslessd.parse.")] + [
        importlib.import_module(f"losslessd.{name}") for name in ("parse", "platforms", "printable")]


def test_no_parser_module_compiles_a_pattern_at_import():
    # A parser's module is imported within the command line's lint, where a lazy pattern's program is kept
    # (losslessd.recache): one compiled at import was compiled by `re` in every lint that read such a device (the host
    # script reader's 49: a lint of one rendered host script 542.8 -> 508.0 M instructions, docs/lint-at-scale.md,
    # "Session 44, part b").
    found = {m.__name__: texts for m in _parser_modules() if (texts := _compiled_at_import(m))}
    assert len(_parser_modules()) >= 50 and found == {}


def _texts_given_to_re(module) -> list[str]:
    """The lines of ``module`` whose functions give re's module functions a pattern written as a string literal: `re`
    compiles it there, in every process (its own cache lives as long as the process), never from a kept program."""
    out = []

    def visit(node, in_function: bool) -> None:
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        if (inside and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _RE_FUNCTIONS - {"escape"} and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re" and node.args and isinstance(node.args[0], ast.Constant)):
            out.append(f"{module.__name__}:{node.lineno}: {ast.unparse(node)}")
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(ast.parse(inspect.getsource(module)), False)
    return out


def test_no_parser_gives_re_a_pattern_text_at_run_time():
    found = [line for module in _parser_modules() for line in _texts_given_to_re(module)]
    assert found == [], "\n".join(found)


def test_a_platforms_refusal_matcher_is_lazy():
    # (every reader of a command's output asks it: compiled by `re` in every lint, 3.3 M instructions of the example's)
    from losslessd.platforms import PLATFORMS

    platforms = [p for p in PLATFORMS.values() if p.refusals]
    assert len(platforms) >= 8
    for platform in platforms:
        matcher = dataclasses.replace(platform)._refusal  # (a copy: its matcher not asked yet)
        assert isinstance(matcher, _Lazy) and matcher.pattern == platform._refusal.pattern
