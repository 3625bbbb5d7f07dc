"""The rule list `losslessd rules` prints, kept in data/rules.txt so that listing the rules imports none of them.

Importing the rule families (and the model, parsers and analyses they use) is most of what `losslessd rules` did
beyond starting typer. The file's first line holds a digest of the sources the list is made from (the rule
families, the registry, the engine's crash rule, the severities) and of the list below it: when either is not
theirs (a rule edited, the file not regenerated, or the installed file cut short or damaged), the list is made from
the rules themselves, so a stale or damaged file is never printed.
`make schemas` (python -m losslessd.lint.index) rewrites it; tests/test_rule_index.py fails when it differs.
"""

from __future__ import annotations

from pathlib import Path

from ..sha import sha256

PACKAGE = Path(__file__).resolve().parent.parent
INDEX = PACKAGE / "data" / "rules.txt"
_HEADER = "# losslessd rules, made from sources with sha256 "
# The file is 68 lines of ~130 characters: more than this is no index losslessd wrote (and is not read whole).
_MAX_INDEX_BYTES = 64 * 1024


def sources() -> list[Path]:
    """The files every listed fact (code, name, severity, scope, summary, fixability) is written in."""
    lint = PACKAGE / "lint"
    return [*sorted((PACKAGE / "rules").glob("*.py")), lint / "registry.py", lint / "internal.py", lint / "finding.py"]


def digest() -> str:
    sha = sha256()
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


def _list_digest(listed: list[str]) -> str:
    return sha256("".join(f"{line}\n" for line in listed).encode()).hexdigest()


def text(listed: list[str] | None = None) -> str:
    """The index file: the digest line (the sources', then the list's), then the list (default: the rules')."""
    listed = lines() if listed is None else listed
    return "".join(f"{line}\n" for line in (f"{_HEADER}{digest()} list {_list_digest(listed)}", *listed))


def listing(index: Path = INDEX) -> list[str]:
    """The rule list: from ``index`` when it was made from the sources as they are and its list is whole, else from
    the rules. The file is read as input is (limits.read_text): a FIFO or a device put in its place, or a file of
    gigabytes, hung or filled the memory of `losslessd rules`."""
    from ..errors import InputError
    from ..limits import read_text

    try:
        head, *rest = read_text(index, limit=_MAX_INDEX_BYTES, what="rule index").split("\n")
        if rest and rest[-1] == "":
            rest.pop()
        if head == f"{_HEADER}{digest()} list {_list_digest(rest)}":
            return rest
    # (missing, unreadable, not a file, too big, empty; or a source the digest reads not installed, compiled modules
    # shipped alone: the rules themselves say it)
    except (InputError, OSError, ValueError):
        pass
    return lines()


def main() -> None:
    INDEX.write_text(text(), encoding="utf-8")
    print(f"wrote {INDEX.relative_to(PACKAGE.parent)}")


if __name__ == "__main__":
    main()
