"""Text from inputs as a terminal shows it: control characters written out, never sent.

A device name, port name or file name comes from a config or capture someone else wrote. Printed raw, an
escape sequence in it (ESC [ ... m, OSC 52 ...) recolours, retitles or rewrites the operator's terminal, a
newline forges a report line, and a bidi override (U+202E) shows a name reversed, or a message's words in
another order than they are (the "Trojan Source" attack, CVE-2021-42574). The text report and the command
line's error lines show such characters as ``\\x1b`` / ``\\n`` / ``\\u202e`` escapes; JSON and SARIF reports
write them as JSON ``\\uXXXX`` escapes (json_safe: the same strings to a JSON reader, inert on a terminal);
GitHub annotations escape them by their own rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .lazyre import lazy

# C0 controls, DEL and C1 controls (ESC, CSI 0x9b, OSC 0x9d ... in 8-bit form) and the Unicode line breaks;
# tabs are left as they are. Then the invisible characters that reorder or hide text (Unicode TR9 "Unicode
# Bidirectional Algorithm" 2.1-2.6: the embeddings, overrides and isolates U+202A-202E, U+2066-2069 and the
# marks U+200E, U+200F, U+061C; and the zero-width U+200B-200D, U+2060-2064, U+FEFF that make two names look
# alike), each the CVE-2021-42574 paper ("Trojan Source", Boucher and Anderson 2021) lists or uses.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b\u2060-\u2064\ufeff"
_JOINERS = "\u200c\u200d"
_INVISIBLE = _BIDI + _ZERO_WIDTH + _JOINERS
_LINE_SEPARATORS = "\u2028\u2029"
# Lone surrogates (U+D800-DFFF) are no characters at all (Unicode 15.0 §3.9 D76): Python makes U+DC80-DCFF of a
# file name's bytes that are not UTF-8 (PEP 383 surrogateescape), and json.loads makes any of them from a \udXXX
# escape; written out they fail a UTF-8 encoder, or put bytes that are not UTF-8 into a JSON report.
_SURROGATE = "\ud800-\udfff"
# (compiled on first use, as _JSON_UNSAFE: a lint of printable text with a text report needs neither)
_CONTROL = lazy(rf"[\x00-\x08\x0a-\x1f\x7f-\x9f{_LINE_SEPARATORS}{_INVISIBLE}{_SURROGATE}]")
# C0 controls but tab and line ends, DEL and the C1 controls (U+0080-009F: CSI U+009B is an 8-bit escape, NEL U+0085
# a line end to str.splitlines and YAML): no device writes them in a config or a command's output, so one in a file
# or a session's output is a damaged copy or a broken terminal (parse.parse_group, collect.ssh).
_DEVICE_CONTROLS = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
DEVICE_CONTROL = re.compile(f"[{_DEVICE_CONTROLS}]")
# ... and, in a device file, the characters that break or hide a word without showing: Unicode's line and paragraph
# separators and the invisible characters above, but the zero-width joiners U+200C/U+200D (emoji sequences and
# Persian or Indic words in a description hold them). `interface Ether<U+200B>net1/1` is no Ethernet port, and a
# `shut<U+200B>down` no shutdown: the line read otherwise than it shows, without a word (parse.parse_group). Last,
# the decimal digits of other scripts (Unicode category Nd, which \d and int() take: an Arabic-Indic `pfc_enable
# "٣"` read as priority 3, a speed of "١٠٠٠٠٠" as 100000), where SONiC's swss reads numbers with std::stoi (strtol,
# C11 7.22.1.4: the digits of the C locale, 0-9) and no switch CLI takes them.
DEVICE_UNSEEN = re.compile(f"[{_DEVICE_CONTROLS}{_LINE_SEPARATORS}{_BIDI}{_ZERO_WIDTH}]|(?![0-9])\\d")
# What JSON's own escaping leaves raw (it escapes U+0000-001F only).
_JSON_UNSAFE = lazy(rf"[\x7f-\x9f{_LINE_SEPARATORS}{_INVISIBLE}{_SURROGATE}]")


# Letters of the scripts that hold look-alikes of Latin ones (Unicode TR39 "Unicode Security Mechanisms" 4 and 5.1,
# mixed-script confusables: its confusables.txt maps Greek, Cyrillic and Armenian letters and the full-width forms to
# Latin ones, `Ε` U+0395 to `E`, `р` U+0440 to `p`). In a word of ASCII letters one makes a name show as another
# (`sрine1` as spine1: "no device spine1" beside the device spine1); such a word is written with the letter escaped,
# `s\u0440ine1`. Greek and Cyrillic words of their own are text, left as they are; so is Greek mu (U+03BC: `10μs`).
_LOOKALIKE = "\u0370-\u03bb\u03bd-\u03ff\u1f00-\u1fff\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f" \
    "\u0531-\u058f\uff21-\uff3a\uff41-\uff5a"
LOOKALIKE = lazy(f"[{_LOOKALIKE}]")  # (compiled once a text that is not ASCII is met)
_LOOKALIKE_WORD = lazy(rf"\w*[{_LOOKALIKE}]\w*")


def mixed_script_words(text: str) -> Iterator[re.Match]:
    """The words of ``text`` mixing ASCII letters with a look-alike letter (LOOKALIKE). (Each search starts at a
    look-alike letter and takes its word's ends from there: linear in the text.)"""
    try:  # (every look-alike is past U+00FF: a text of Latin-1 letters, `Café` or a no-break space, is copied in
        text.encode("latin-1")  # 1 us, where the search takes 370 us for a 116 kB CONFIG_DB)
        return
    except UnicodeEncodeError:
        pass
    pos = 0
    while (found := LOOKALIKE.search(text, pos)) is not None:
        start = found.start()
        while start > pos and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        word = _LOOKALIKE_WORD.match(text, start)
        assert word is not None
        if any(c.isascii() and c.isalpha() for c in word[0]) and any(
                c.isalpha() and LOOKALIKE.match(c) for c in word[0]):
            yield word
        pos = max(word.end(), found.end())


def _escape_lookalikes(text: str) -> str:
    """``text`` with the look-alike letters of its mixed-script words escaped (``\\uXXXX``)."""
    out, at = [], 0
    for word in mixed_script_words(text):
        out += [text[at:word.start()], LOOKALIKE.sub(lambda m: f"\\u{ord(m[0]):04x}", word[0])]
        at = word.end()
    return "".join(out) + text[at:] if out else text


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in "\n\r":
        return "\\n" if char == "\n" else "\\r"
    if 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): the byte, as `ls -b` shows it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def printable(text: str) -> str:
    """``text`` on one line, its control characters and look-alike letters in Latin words written out (a message
    of several lines: line by line)."""
    text = text if text.isprintable() else _CONTROL.sub(_escape, text)  # (isprintable: the usual case, in C)
    return text if text.isascii() else _escape_lookalikes(text)


def quoted(text: str, limit: int = 40) -> str:
    """``text`` as an error quotes a value from the input: repr() (control characters escaped), cut after ``limit``
    characters with how long it is (a 100,000-character argument was echoed whole)."""
    return repr(text[:limit]) + (f"... ({len(text):,} characters)" if len(text) > limit else "")


def printable_lines(text: str) -> str:
    """``text`` with its lines kept (snippets, diffs, reports of several lines), each line's control characters
    written out."""
    return "\n".join(printable(line) for line in text.split("\n"))


def json_safe(text: str) -> str:
    """JSON text (json.dumps with ensure_ascii=False) with the characters JSON leaves raw that a terminal acts
    on (DEL, C1 controls, line separators, bidi controls) written as ``\\uXXXX``: the same document to a JSON
    reader, inert when someone runs ``cat`` on it. (isascii: the usual report, in C.)"""
    if text.isascii() and "\x7f" not in text:
        return text
    return _JSON_UNSAFE.sub(_json_escape, text)


def _json_escape(match: re.Match) -> str:
    """A ``\\uXXXX`` escape; a lone surrogate as the text ``\\xNN`` / ``\\udXXX`` instead (RFC 8259 §8.2: a
    string with one is unpredictable to readers; serde_json refuses it, jq makes it U+FFFD): a report stays UTF-8
    and valid JSON to every reader, naming the byte the way the text report does."""
    char = match.group()
    if "\ud800" <= char <= "\udfff":
        return "\\" + _escape(match)
    return f"\\u{ord(char):04x}"
