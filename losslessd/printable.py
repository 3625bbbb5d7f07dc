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

import os
import re
import unicodedata
from collections.abc import Iterable, Iterator

from .lazyre import lazy
from .units import is_digits

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
DEVICE_CONTROL = lazy(f"[{_DEVICE_CONTROLS}]")
# ... and, in a device file, the characters that break or hide a word without showing: Unicode's line and paragraph
# separators and the invisible characters above, but the zero-width joiners U+200C/U+200D (emoji sequences and
# Persian or Indic words in a description hold them). `interface Ether<U+200B>net1/1` is no Ethernet port, and a
# `shut<U+200B>down` no shutdown: the line read otherwise than it shows, without a word (parse.parse_group). Last,
# the decimal digits of other scripts (Unicode category Nd, which \d and int() take: an Arabic-Indic `pfc_enable
# "٣"` read as priority 3, a speed of "١٠٠٠٠٠" as 100000), where SONiC's swss reads numbers with std::stoi (strtol,
# C11 7.22.1.4: the digits of the C locale, 0-9) and no switch CLI takes them.
DEVICE_UNSEEN = lazy(f"[{_DEVICE_CONTROLS}{_LINE_SEPARATORS}{_BIDI}{_ZERO_WIDTH}]|(?![0-9])\\d")
# What JSON's own escaping leaves raw (it escapes U+0000-001F only).
_JSON_UNSAFE = lazy(rf"[\x7f-\x9f{_LINE_SEPARATORS}{_INVISIBLE}{_SURROGATE}]")


# The letters of other scripts that look like Latin ones: the Greek, Cyrillic, Armenian and full-width letters that
# Unicode TR39's confusables.txt (version 14.0.0, "Unicode Security Mechanisms" 4) maps to one ASCII letter or digit
# (`Ε` U+0395 to `E`, `р` U+0440 to `p`), 129 of them; `Δ`, `Ω`, `в` and mu (`10μs`) map to none. In a word of ASCII
# letters a run of them makes a name show as another (`sрine1` as spine1: "no device spine1" beside the device
# spine1); such a word is written with the letters escaped, `s\u0440ine1`. A run holding a letter that looks like no
# Latin one is a word of that language (`GPUсервер`, `10kΩ`: TR39 5.1's whole-script test, a run is a look-alike
# only if all of it is), and Greek or Cyrillic words of their own are text: both left as they are.
_LOOKALIKE = (
    "\u037a\u037f\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u03b1\u03b3\u03b9\u03bd\u03bf\u03c1\u03c3\u03c5\u03d2\u03dc\u03e8\u03f1\u03f2\u03f3\u03f9\u03fa"
    "\u0405\u0406\u0408\u0410\u0412\u0415\u0417\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425"
    "\u042b\u042c\u042e\u0430\u0431\u0433\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u0461"
    "\u0474\u0475\u04ae\u04af\u04bb\u04bd\u04c0\u04cf\u04d4\u04d5\u04e0\u0501\u050c\u051b\u051c\u051d"
    "\u054d\u054f\u0555\u0561\u0563\u0566\u0570\u0578\u057c\u057d\u0581\u0584\u0585\u1fbe\ua644\ua647"
    "\ua698\ua699\uff21\uff22\uff23\uff25\uff28\uff29\uff2a\uff2b\uff2d\uff2e\uff2f\uff30\uff33\uff34"
    "\uff38\uff39\uff3a\uff41\uff43\uff45\uff47\uff48\uff49\uff4a\uff4c\uff4f\uff50\uff53\uff56\uff58"
    "\uff59")
LOOKALIKE = lazy(f"[{_LOOKALIKE}]")  # (compiled once a text that is not ASCII is met)
_LOOKALIKE_WORD = lazy(r"\w+")


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
        if any(c.isascii() and c.isalpha() for c in word[0]) and _runs_look_latin(word[0]):
            yield word
        pos = max(word.end(), found.end())


def _runs_look_latin(word: str) -> bool:
    """Every run of letters of another script than Latin in ``word`` is look-alikes alone (`sрine1`, `Εthernet1`;
    not `GPUсервер` nor `10kΩ`). (Only words holding a look-alike get here: rare, so the names are looked up.)"""
    import unicodedata

    runs: list[str] = []
    run = ""
    for c in word + " ":
        if c.isalpha() and not c.isascii() and not unicodedata.name(c, "").startswith("LATIN"):
            run += c
        elif run:
            runs.append(run)
            run = ""
    return bool(runs) and all(LOOKALIKE.fullmatch(c) for run in runs for c in run)


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


def unseen_removed(text: str) -> str:
    """``text`` without the characters a terminal shows as nothing: controls (a C string's NUL), zero-width, joiners,
    bidi controls, line separators."""
    return text if text.isprintable() else _CONTROL.sub("", text)


def name_node(name: str) -> str:
    """A device name as compared with another naming of the device (a sysName, a capture header's): what a terminal
    shows of it (characters that show as nothing dropped: an agent's C string ending in NUL, a zero-width space;
    compatibility forms as NFKC makes them, UAX #15: full-width `ｌｅａｆ１` is leaf1), case folded (RFC 4343), its
    first DNS label alone (a sysName is by convention the FQDN, an inventory's name often the short one), an address
    whole."""
    name = unicodedata.normalize("NFKC", unseen_removed(name)).strip().rstrip(".").casefold()
    first = name.split(".", 1)[0]
    return name if is_digits(first) else first


def shows_as(node: str, other: str) -> bool:
    """Whether name ``node`` (a sysName) shows as device name ``other`` (both name_node): the same, or letters of
    other scripts that look like Latin ones (LOOKALIKE: Cyrillic `е` in `lеaf1`) where ``other`` has an ASCII letter
    or digit, the rest the same."""
    return len(node) == len(other) and all(
        a == b or (b.isascii() and b.isalnum() and LOOKALIKE.fullmatch(a) is not None)
        for a, b in zip(node, other, strict=True))


def fleet_nodes(fleet: Iterable[str]) -> dict[str, list[str]]:
    """The device names of ``fleet`` by their name_node, each list sorted."""
    nodes: dict[str, list[str]] = {}
    for name in sorted(fleet):
        nodes.setdefault(name_node(name), []).append(name)
    return nodes


def names_shown(node: str, nodes: dict[str, list[str]]) -> list[str]:
    """The names of a fleet (``nodes``: fleet_nodes) that name ``node`` (a name_node) shows as (shows_as), sorted."""
    # (an ASCII name shows as no other than itself: a look-alike letter is never ASCII)
    return nodes.get(node, []) if node.isascii() else sorted(
        name for other, names in nodes.items() if shows_as(node, other) for name in names)


# A path a message shows: its start and its last part (the file's own name, whole up to NAME_MAX, 255 bytes on
# Linux's file systems: limits.h), the middle cut and counted. A path may run to PATH_MAX (4,096) and past it as the
# command line gives it (a 5,000-character one was named whole three times in one error).
PATH_SHOWN_START = 64
NAME_SHOWN = 255


def shown_path(path: str) -> str:
    """``path`` as a message shows it: whole when short, else its first PATH_SHOWN_START characters, how many were
    cut, and its last part (its own end alone where that part is past NAME_SHOWN, which no file's name is) with one of
    the slashes that end it (a run of them names what one names: POSIX.1-2017 XBD 4.13, Pathname Resolution). Two
    paths differing only in the cut middle are told apart by the first 12 hex digits of the SHA-256 of the whole path
    (its bytes as the file system has them): `printf %s PATH | sha256sum` finds it from a JSON report's."""
    if len(path) <= PATH_SHOWN_START + NAME_SHOWN + 32:
        return path
    end = len(path.rstrip("/"))  # (the last part that names something: `out.json/` shows out.json)
    start = min(PATH_SHOWN_START, end)
    cut = max(path.rfind("/", start, end), end - NAME_SHOWN - 1, start)
    tail = path[cut:end + 1]
    try:
        whole = os.fsencode(path)
    except UnicodeEncodeError:  # (a lone surrogate no file system name decodes to: a path from JSON or YAML)
        whole = path.encode("utf-8", "surrogatepass")
    from .sha import sha256  # (only for a path past the message limit; without OpenSSL's load: sha.py)

    digest = sha256(whole).hexdigest()[:12]
    return f"{path[:start]}...({len(path) - start - len(tail):,} characters cut, sha256 {digest})...{tail}"


def quoted(text: object, limit: int = 40) -> str:
    """``text`` as an error quotes a value from the input: repr() (control characters escaped), cut after ``limit``
    characters with how long it is (a 100,000-character argument was echoed whole); a value that is no text (a
    number or a list where a file wants a name) as its repr(), cut the same way."""
    if not isinstance(text, str):
        shown = repr(text)
        return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(shown):,} characters)"
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
