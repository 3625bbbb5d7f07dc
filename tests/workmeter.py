"""The work a parser does, counted, not timed (tests never assert on time: docs/hostile-inputs.md, session 44 g).

``steps`` counts the Python frames of some files that a run enters or resumes. ``work`` adds what their regular
expressions scanned: each module-level pattern of the modules named is stood in for, for the run, by one that
counts the characters a call must have passed. That is a lower bound of `re`'s work (a search that matched at P
tried every start before P; one that failed tried them all; a match counts what it took), so a linear reader never
counts as more than linear, and one that searches the same stretch again per item counts its square.

``work`` adds what the modules' own code scans or copies of a string, a list or a tuple (session 45, round 26: a
`text.find(x)` from 0 per item, or `x in text` on a text that grows, passed it): for the run, each function and
method of theirs runs code compiled from its source with each `a in b` / `a not in b`, each call of a scanning
method (`find`, `index`, `count`, `split`, `replace`, `join`, ...: SCANS) and each slice read (`text[i:]`, a copy)
routed through a counter of the same lower bound: a search, the elements up to its match (all where it failed); a
method that reads the whole value, its length; a slice or a join, what it made. What a single `re` call does inside
(backtracking) is not seen: no count of it is readable here (no hardware counter: perf_event_open answers ENOENT on
these machines); ``instruction_growth`` counts it, under valgrind.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
import types
from collections.abc import Callable, Collection, Iterable, Iterator
from types import ModuleType
from typing import Any

from losslessd.lazyre import _Lazy


def steps(files: Collection[str], run: Callable[..., Any], *args: Any) -> tuple[int, Any]:
    """The Python frames of ``files`` that ``run(*args)`` enters or resumes (a step count, not a time), and what it
    gave."""
    count = [0]

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename in files:
            count[0] += 1

    sys.settrace(tracer)
    try:
        result = run(*args)
    finally:
        sys.settrace(None)
    return count[0], result


class _Metered:
    """A compiled pattern whose calls add the characters they must have passed to ``count[0]``."""

    def __init__(self, pattern: Any, count: list[int]) -> None:
        self._pattern, self._count = pattern, count

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pattern, name)

    def _span(self, string: str, pos: int, endpos: int) -> tuple[int, int]:
        size = len(string)
        return min(max(pos, 0), size), min(max(endpos, 0), size)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match | None:
        start, end = self._span(string, pos, endpos)
        m = self._pattern.search(string, pos, endpos)
        self._count[0] += 1 + (m.end() if m else end) - start
        return m

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match | None:
        start, _ = self._span(string, pos, endpos)
        m = self._pattern.match(string, pos, endpos)
        self._count[0] += 1 + (m.end() - start if m else 0)
        return m

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match | None:
        start, _ = self._span(string, pos, endpos)
        m = self._pattern.fullmatch(string, pos, endpos)
        self._count[0] += 1 + (m.end() - start if m else 0)
        return m

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match]:
        start, end = self._span(string, pos, endpos)
        self._count[0] += 1
        for m in self._pattern.finditer(string, pos, endpos):
            self._count[0] += m.end() - start
            start = m.end()
            yield m
        self._count[0] += end - start

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        self._count[0] += 1 + len(string)
        return self._pattern.findall(string, pos, endpos)

    def _whole(self, name: str, string: str, args: Iterable[Any], kwargs: dict[str, Any]) -> Any:
        self._count[0] += 1 + len(string)
        return getattr(self._pattern, name)(string, *args, **kwargs)

    def sub(self, repl: Any, string: str, *args: Any, **kwargs: Any) -> Any:
        return self._subbed("sub", repl, string, args, kwargs)

    def subn(self, repl: Any, string: str, *args: Any, **kwargs: Any) -> Any:
        return self._subbed("subn", repl, string, args, kwargs)

    def _subbed(self, name: str, repl: Any, string: str, args: tuple, kwargs: dict[str, Any]) -> Any:
        self._count[0] += 1 + len(string)
        return getattr(self._pattern, name)(repl, string, *args, **kwargs)

    def split(self, string: str, *args: Any, **kwargs: Any) -> list[Any]:
        return self._whole("split", string, args, kwargs)


# The methods of str (and bytes, list, tuple) whose work grows with the value they are called on: searches (a match
# counts up to it), and those that read or copy it whole. (startswith/endswith read their prefix only: not here.)
_SEARCHES = frozenset({"find", "index", "rfind", "rindex"})
SCANS = _SEARCHES | frozenset({
    "count", "split", "rsplit", "splitlines", "partition", "rpartition", "replace", "strip", "lstrip", "rstrip",
    "lower", "upper", "casefold", "expandtabs", "translate", "encode", "decode", "join", "isdigit", "isspace",
    "isascii", "isprintable", "isalnum", "isalpha"})
_SEQUENCES = (str, bytes, bytearray, list, tuple)
_METER = "__workmeter__"  # (the global the instrumented code calls)


class _Scans:
    """The counter the instrumented code calls (``count[0]``: the run's count, shared with the patterns')."""

    def __init__(self, count: list[int]) -> None:
        self.count = count

    def contains(self, item: Any, container: Any) -> bool:
        if (isinstance(container, str) and isinstance(item, str)) or (
                isinstance(container, (bytes, bytearray)) and isinstance(item, (bytes, bytearray))):
            at = container.find(item)
            self.count[0] += 1 + (len(container) if at < 0 else at + len(item))
            return at >= 0
        if isinstance(container, (list, tuple)):
            found = item in container
            self.count[0] += 1 + (container.index(item) + 1 if found else len(container))
            return found
        self.count[0] += 1  # (a dict, a set: hashed)
        return item in container

    def method(self, value: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        result = getattr(value, name)(*args, **kwargs)
        if isinstance(value, _SEQUENCES):
            size = len(value)
            if name in _SEARCHES and isinstance(value, (str, bytes, bytearray)):
                bounds = (*args[1:3], None, None)
                start, end, _ = slice(bounds[0], bounds[1]).indices(size)
                needle = len(args[0]) if args and isinstance(args[0], (str, bytes)) else 0
                if name.startswith("r"):
                    self.count[0] += 1 + (end - result if result >= 0 else end - start)
                else:
                    self.count[0] += 1 + (result - start + needle if result >= 0 else end - start)
            elif name == "join":
                self.count[0] += 1 + len(result)
            else:
                self.count[0] += 1 + size
        return result

    def sliced(self, value: Any, part: slice) -> Any:
        result = value[part]
        self.count[0] += 1 + (len(result) if isinstance(value, _SEQUENCES) else 0)
        return result


class _Instrument(ast.NodeTransformer):
    """Routes the scans of the class that ``work`` counts through ``__workmeter__`` (a _Scans)."""

    @staticmethod
    def _meter(attr: str, node: ast.AST, args: list[ast.expr], keywords: list[ast.keyword] | None = None) -> ast.Call:
        call = ast.Call(func=ast.Attribute(value=ast.Name(id=_METER, ctx=ast.Load()), attr=attr, ctx=ast.Load()),
                        args=args, keywords=keywords or [])
        return ast.copy_location(call, node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.In, ast.NotIn)):
            return node
        call: ast.expr = self._meter("contains", node, [node.left, node.comparators[0]])
        if isinstance(node.ops[0], ast.NotIn):
            call = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=call), node)
        return call

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in SCANS:
            return node
        return self._meter("method", node, [func.value, ast.Constant(func.attr), *node.args], node.keywords)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or not isinstance(node.slice, ast.Slice):
            return node
        part = node.slice
        bounds = [b if b is not None else ast.Constant(None) for b in (part.lower, part.upper, part.step)]
        made = ast.Call(func=ast.Name(id="slice", ctx=ast.Load()), args=bounds, keywords=[])
        return self._meter("sliced", node, [node.value, ast.copy_location(made, node)])


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _functions(module: ModuleType) -> Iterator[types.FunctionType]:
    """The functions and methods defined in ``module`` (decorated ones unwrapped), each once."""
    seen: set[int] = set()
    values = list(vars(module).values())
    while values:
        value = values.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, (staticmethod, classmethod)):
            values.append(value.__func__)
        elif isinstance(value, property):
            values.extend(f for f in (value.fget, value.fset, value.fdel) if f is not None)
        elif isinstance(value, type) and value.__module__ == module.__name__:
            values.extend(vars(value).values())
        elif isinstance(value, types.FunctionType) and value.__code__.co_filename == module.__file__:
            yield value
        if hasattr(value, "__wrapped__") and not isinstance(value, type):
            values.append(value.__wrapped__)


def _instrument(modules: list[ModuleType], count: list[int],
                swapped: list[tuple[types.FunctionType, types.CodeType]]) -> None:
    """Gives each function of ``modules`` the code ``_Instrument`` makes of its source; what it had, to put back, in
    ``swapped`` as it goes (a module whose source cannot be read stops it with the others' already there)."""
    for module in modules:
        if not module.__file__:
            continue
        tree = _Instrument().visit(ast.parse(inspect.getsource(module), module.__file__))
        compiled = compile(ast.fix_missing_locations(tree), module.__file__, "exec", dont_inherit=True)
        by_name = {code.co_qualname: code for code in _codes(compiled)}
        setattr(module, _METER, _Scans(count))
        for function in _functions(module):
            code = by_name.get(function.__code__.co_qualname)
            if code is not None and code.co_freevars == function.__code__.co_freevars:
                swapped.append((function, function.__code__))
                function.__code__ = code


def work(modules: Iterable[ModuleType], run: Callable[..., Any], *args: Any) -> tuple[int, Any]:
    """The work ``run(*args)`` does in ``modules``: their Python frames entered or resumed plus the characters their
    module-level patterns must have passed and their own code scanned or copied (see the module's docstring), and
    what it gave."""
    modules = list(dict.fromkeys(modules))  # (a module named twice is metered once: else its metered code is "saved")
    count = [0]
    saved: list[tuple[ModuleType, str, Any]] = []
    swapped: list[tuple[types.FunctionType, types.CodeType]] = []
    try:
        for module in modules:
            for name, value in list(vars(module).items()):
                if isinstance(value, (_Lazy, re.Pattern)):
                    saved.append((module, name, value))
                    setattr(module, name, _Metered(value, count))
        _instrument(modules, count, swapped)
        frames, result = steps({m.__file__ for m in modules if m.__file__}, run, *args)
    finally:
        for function, code in reversed(swapped):
            function.__code__ = code
        for module in modules:
            if _METER in vars(module):
                # A generator or closure made during the run keeps the metered code: it still runs, counted nowhere.
                setattr(module, _METER, _Scans([0]))
        for module, name, value in reversed(saved):
            setattr(module, name, value)
    return frames + count[0], result


def package_modules(package: ModuleType) -> list[ModuleType]:
    """``package`` and the modules in it (imported)."""
    return [package, *(importlib.import_module(f"{package.__name__}.{info.name}")
                       for info in pkgutil.iter_modules(package.__path__))]


def mlx5_modules() -> list[ModuleType]:
    """The host parser's modules and the shared readers it calls."""
    from losslessd.parse import base, braces, clitext, mlx5

    return [*package_modules(mlx5), base, braces, clitext]


def instruction_growth(setup: str, work_of: str, sizes: tuple[int, int]) -> tuple[float, float]:
    """The instructions (millions, callgrind: a count, the same on a loaded machine) that ``work_of`` executes at
    ``n`` = each of ``sizes``, less those of the same process at n = 0 (the interpreter's start and ``setup``):
    work inside one `re` call or `str` method, which ``work`` cannot see, is counted too. One process under valgrind
    per size (bench/startup.py's count), so for slow tests; skipped where valgrind is not installed."""
    import shutil

    import pytest

    from bench.startup import instructions

    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (Debian package valgrind; `make deb-deps` installs it)")
    base, *counts = (instructions([sys.executable, "-c", f"{setup}\nn = {n}\n{work_of}"], 1) for n in (0, *sizes))
    return counts[0] - base, counts[1] - base
