"""losslessd runs on the oldest Python pyproject.toml allows (requires-python >= 3.10); tests run on a newer one."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import losslessd
from losslessd.lazyre import _Lazy

# Regular-expression syntax added in Python 3.11 ("What's New In Python 3.11", re: atomic grouping and possessive
# quantifiers): on 3.10 re.compile raises "multiple repeat" when the module is imported (there, importing is the
# check, and re has no _parser).
pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="on 3.10 the imports themselves check it")
_PARSER = getattr(re, "_parser", None)
_NEWER = {getattr(getattr(re, "_constants", None), name, None) for name in ("POSSESSIVE_REPEAT", "ATOMIC_GROUP")}


def _uses_newer_syntax(tree) -> bool:
    for op, arg in tree:
        if op in _NEWER:
            return True
        for part in arg if isinstance(arg, (list, tuple)) else (arg,):
            for sub in part if isinstance(part, (list, tuple)) else (part,):
                if isinstance(sub, _PARSER.SubPattern) and _uses_newer_syntax(sub):
                    return True
    return False


def test_the_floor_is_3_10():
    """The check below is only needed while the floor is below 3.11; it says so when the floor moves."""
    import tomllib  # (3.11+: imported here, so that collecting this file on 3.10 does not fail)

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.10"


def test_no_module_pattern_uses_syntax_python_3_10_refuses():
    """tune.bench's perftest column pattern used possessive quantifiers (`[\\w.%]++`): `losslessd tune` and
    everything importing the benchmark reader failed at import on Python 3.10."""
    checked, newer = 0, []
    for info in pkgutil.walk_packages(losslessd.__path__, "losslessd."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                text, flags = value.pattern, value.flags
            elif isinstance(value, _Lazy):  # (a pattern compiled on first use: read, not compiled, here)
                text, flags = value.pattern, value._flags
            else:
                continue
            checked += 1
            if _uses_newer_syntax(_PARSER.parse(text, flags)):
                newer.append(f"{info.name}.{name}")
    assert checked > 100 and newer == []
    # the detector itself finds both kinds
    assert _uses_newer_syntax(_PARSER.parse(r"a(?: b++)*")) and _uses_newer_syntax(_PARSER.parse(r"(?>ab)"))
