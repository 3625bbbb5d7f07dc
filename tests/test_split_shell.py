"""parse.base.split_shell gives the words Python's shlex gives (the readers of Junos, NVUE and host scripts split
their lines with it), but in time linear in the line: shlex adds each character to an attribute string, and a quoted
word of a few MiB did not end (round 3 of the hostile inputs: a 1 MiB line in a host script hung lint)."""

from __future__ import annotations

import random
import shlex

import pytest

from losslessd.parse.base import split_shell

# What shlex treats apart: blanks, quotes, the backslash, `#`, bash's list and redirection operators; and a
# non-breaking space and a non-ASCII letter, which are word characters to it.
PIECES = ["a", "b", " ", "\t", "\n", "\r", "'", '"', "\\", "#", ";", "&", "|", "<", ">", "x y", "\u00e9", "\u00a0",
          "$(", ")"]
MODES = [("", False), (";&|<>", True), ("", True), (";&|<>", False)]


def _shlex(line: str, punctuation: str, comments: bool) -> list[str] | str:
    lex = shlex.shlex(line, posix=True, punctuation_chars=punctuation) if punctuation else shlex.shlex(line, posix=True)
    lex.whitespace_split = True
    if not comments:
        lex.commenters = ""
    try:
        return list(lex)
    except ValueError as exc:
        return str(exc)


def _ours(line: str, punctuation: str, comments: bool) -> list[str] | str:
    try:
        return split_shell(line, punctuation, comments)
    except ValueError as exc:
        return str(exc)


@pytest.mark.parametrize("punctuation,comments", MODES)
def test_the_words_and_errors_are_shlex_s(punctuation, comments):
    rnd = random.Random(26)
    for _ in range(15_000):
        line = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 14)))
        assert _ours(line, punctuation, comments) == _shlex(line, punctuation, comments), repr(line)


def test_shlex_split_is_the_default():
    for line in ['set x description "a b"', "a\\ b 'c d' \"e\\\"f\\g\"", "x # not a comment", "a;b"]:
        assert split_shell(line) == shlex.split(line)


def test_a_quoted_word_of_16_mib_is_one_word():
    """Through shlex this took longer than the hostile harness waits (its per-character `token +=`)."""
    word = "y" * (16 << 20)
    assert split_shell(f'set x description "{word}" end') == ["set", "x", "description", word, "end"]
    assert split_shell("mlnx_qos -i eth0 " + word + "; x", ";&|<>", True)[-3:] == [word, ";", "x"]
