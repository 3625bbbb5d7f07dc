"""parse.base.split_shell gives the words Python's shlex gives (the readers of Junos, NVUE and host scripts split
their lines with it), but in time linear in the line: shlex adds each character to an attribute string, and a quoted
word of a few MiB did not end (round 3 of the hostile inputs: a 1 MiB line in a host script hung lint)."""

from __future__ import annotations

import random
import re
import shlex
import shutil
import subprocess

import pytest

from losslessd.parse.base import shell_words, split_shell

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


def _word_start_hashes(punctuation: str) -> re.Pattern:
    """A `#` where shlex and bash both start a comment: at the line's start or after an unescaped blank or operator."""
    return re.compile(rf"(?:^|(?<!\\)[ \t\r\n{re.escape(punctuation)}])#")


@pytest.mark.parametrize("punctuation,comments", MODES)
def test_the_words_and_errors_are_shlex_s(punctuation, comments):
    """(With comments, a `#` inside a word is bash's, not shlex's: lines holding one are left to the test below.)"""
    rnd = random.Random(26)
    compared, word_start = 0, _word_start_hashes(punctuation)
    for _ in range(15_000):
        line = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 14)))
        if comments and line.count("#") != len(word_start.findall(line)):
            continue
        compared += 1
        assert _ours(line, punctuation, comments) == _shlex(line, punctuation, comments), repr(line)
    assert compared > 10_000


# bash(1) COMMENTS: "a word beginning with # causes that word and all remaining characters on that line to be
# ignored"; a `#` inside a word is one of its characters (shlex took it for a comment: `a#b` was `a`).
MID_WORD = {"a#b #c": ["a#b"], "'a'#b c": ["a#b", "c"], '"a"#b': ["a#b"], "\\#a": ["#a"], "a\\ #b": ["a #b"],
            "''#x y": ["#x", "y"], "#a b": [], "a #b": ["a"], "x=1#2": ["x=1#2"], "$#": ["$#"]}


@pytest.mark.slow  # a real shell runs beside the splitter
@pytest.mark.parametrize("line", list(MID_WORD))
def test_a_hash_starts_a_comment_only_at_a_word_s_start(line):
    assert split_shell(line, "", True) == split_shell(line, ";&|<>", True) == MID_WORD[line]
    bash = shutil.which("bash")
    if bash and "$" not in line:  # bash itself, printing each word it reads
        got = subprocess.run([bash, "-c", f"printf '<%s>' {line}"], capture_output=True, text=True, check=True).stdout
        assert got == ("".join(f"<{w}>" for w in MID_WORD[line]) or "<>")
    assert split_shell("a;#b", ";&|<>", True) == ["a", ";"] and split_shell("a|b#c", ";&|<>", True) == ["a", "|", "b#c"]


def test_shlex_split_is_the_default():
    for line in ['set x description "a b"', "a\\ b 'c d' \"e\\\"f\\g\"", "x # not a comment", "a;b"]:
        assert split_shell(line) == shlex.split(line)


def test_a_quoted_word_of_16_mib_is_one_word():
    """Through shlex this took longer than the hostile harness waits (its per-character `token +=`)."""
    word = "y" * (16 << 20)
    assert split_shell(f'set x description "{word}" end') == ["set", "x", "description", word, "end"]
    assert split_shell("mlnx_qos -i eth0 " + word + "; x", ";&|<>", True)[-3:] == [word, ";", "x"]


def test_shell_words_drops_comments_as_split_shell_does():
    """shell_words' fast path for plain lines (``line.split()``) cuts at the first word that starts with `#`, the same
    words split_shell gives with comments; without ``comments`` a `#` word is kept (Junos and EOS text has them)."""
    rnd = random.Random(30)
    for _ in range(3_000):
        line = "".join(rnd.choice(["a", "b", " ", "\t", "#", "x#", "$", "'", "\\"]) for _ in range(rnd.randint(0, 12)))
        for comments in (False, True):
            try:
                want: list[str] | str = split_shell(line, comments=comments)
            except ValueError as exc:
                want = str(exc)
            try:
                got: list[str] | str = shell_words(line, comments)
            except ValueError as exc:
                got = str(exc)
            assert got == want, (line, comments)
    assert shell_words("set a #b") == ["set", "a", "#b"] and shell_words("set a#b #c", comments=True) == ["set", "a#b"]
