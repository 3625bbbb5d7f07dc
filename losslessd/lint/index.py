"""The rule list `losslessd rules` prints, kept in data/rules.txt so that listing the rules imports none of them.

Importing the rule families (and the model, parsers and analyses they use) is most of what `losslessd rules` did
beyond starting typer. The file's first line holds a digest of the sources the list is made from (the rule
families, the registry, the engine's crash rule, the severities): when it is not theirs (a rule edited, the file
not regenerated), the list is made from the rules themselves, so a stale file is never printed.
`make schemas` (python -m losslessd.lint.index) rewrites it; tests/test_rule_index.py fails when it differs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
INDEX = PACKAGE / "data" / "rules.txt"
_HEADER = "# losslessd rules, made from sources with sha256 "


def sources() -> list[Path]:
    """The files every listed fact (code, name, severity, scope, summary, fixability) is written in."""
    lint = PACKAGE / "lint"
    return [*sorted((PACKAGE / "rules").glob("*.py")), lint / "registry.py", lint / "internal.py", lint / "finding.py"]


def digest() -> str:
    sha = hashlib.sha256()
    for path in sources():
        data = path.read_bytes()
        sha.update(f"{path.relative_to(PACKAGE).as_posix()}\0{len(data)}\0".encode())
        sha.update(data)
    return sha.hexdigest()


def lines() -> list[str]:
    """One line per rule, from the registry (imports every rule family)."""
    from .registry import all_rules

    out = []
    for rule in all_rules().values():
        fix = f" ({fix_label(rule)})" if rule.fixable else ""
        out.append(f"{rule.code}  {rule.name:<32} {rule.severity.value:<7} {rule.scope:<6} {rule.summary()}{fix}")
    return out


def fix_label(rule) -> str:
    """'fixable, safe' or 'fixable, disruptive' (disruptive fixes need --unsafe-fixes)."""
    return f"fixable, {'disruptive' if rule.disruptive else 'safe'}"


def text() -> str:
    """The index file: the digest line, then the list."""
    return "".join(f"{line}\n" for line in (_HEADER + digest(), *lines()))


def listing(index: Path = INDEX) -> list[str]:
    """The rule list: from ``index`` when it was made from the sources as they are, else from the rules."""
    try:
        head, *rest = index.read_text(encoding="utf-8").splitlines()
        if head == _HEADER + digest():
            return rest
    except (OSError, UnicodeDecodeError, ValueError):  # missing, unreadable, empty: the rules themselves say it
        pass
    return lines()


def main() -> None:
    INDEX.write_text(text(), encoding="utf-8")
    print(f"wrote {INDEX.relative_to(PACKAGE.parent)}")


if __name__ == "__main__":
    main()
