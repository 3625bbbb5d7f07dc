"""The work a parser does, counted, not timed (tests never assert on time: docs/hostile-inputs.md, session 44 g).

``steps`` counts the Python frames of some files that a run enters or resumes. ``work`` adds what their regular
expressions scanned: each module-level pattern of the modules named is stood in for, for the run, by one that
counts the characters a call must have passed. That is a lower bound of `re`'s work (a search that matched at P
tried every start before P; one that failed tried them all; a match counts what it took), so a linear reader never
counts as more than linear, and one that searches the same stretch again per item counts its square. What a single
`re` call does inside (backtracking) and what `str` methods scan are not seen: no count of them is readable here
(no hardware counter: perf_event_open answers ENOENT on these machines).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
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


def work(modules: Iterable[ModuleType], run: Callable[..., Any], *args: Any) -> tuple[int, Any]:
    """The work ``run(*args)`` does in ``modules``: their Python frames entered or resumed plus the characters their
    module-level patterns must have passed (see the module's docstring), and what it gave."""
    modules = list(modules)
    count = [0]
    saved: list[tuple[ModuleType, str, Any]] = []
    for module in modules:
        for name, value in list(vars(module).items()):
            if isinstance(value, (_Lazy, re.Pattern)):
                saved.append((module, name, value))
                setattr(module, name, _Metered(value, count))
    try:
        frames, result = steps({m.__file__ for m in modules if m.__file__}, run, *args)
    finally:
        for module, name, value in saved:
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
