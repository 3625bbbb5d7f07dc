"""The check every device file gets for characters no device writes (parse.parse_group): the C0 and C1 controls and
DEL, Unicode's line separators and the invisible characters that hide a word's break (printable.DEVICE_UNSEEN). In
a file of ASCII each control is looked for on its own (memchr), so that list must be exactly the class's ASCII part."""

from __future__ import annotations

import pytest

from losslessd import api
from losslessd.parse import parse_group
from losslessd.printable import DEVICE_CONTROL, DEVICE_UNSEEN
from tests.hostile_readers import READERS

# Unicode TR9 2.1-2.6 (the bidi embeddings, overrides, isolates and marks) and the zero-width characters the
# "Trojan Source" paper (CVE-2021-42574) uses; U+2028/2029 are line ends to str.splitlines and YAML 1.1.
INVISIBLE = ["\u061c", "\u200b", "\u200e", "\u200f", "\u202a", "\u202e", "\u2060", "\u2064", "\u2066", "\u2069",
             "\ufeff", "\u2028", "\u2029"]
# What a description may hold (a tab, a no-break space, a Latin letter, an emoji's zero-width joiner U+200D, the
# Persian zero-width non-joiner U+200C, a superscript two, which is no decimal digit): no issue.
SEEN = ["\t", "\xa0", "\xe9", "\u200c", "\u200d", "\u3000", "\xb2"]
# Decimal digits of other scripts (Unicode category Nd: Arabic-Indic, Devanagari, fullwidth, mathematical bold).
OTHER_DIGITS = ["\u0663", "\u096f", "\uff13", "\U0001d7d1"]


def _issues(tmp_path, char: str, words: str | None = None) -> list[str]:
    """The SYS002 issues of the mlx5 reader's capture with ``char`` in a word (`Cable<char>len:`), or ``words`` after
    it (`Cable len <words>:`)."""
    mlx5 = next(r for r in READERS if r.label == "mlx5")
    text = mlx5.file.read_text(encoding="utf-8")
    assert "Cable len:" in text
    path = tmp_path / f"host-{ord(char[:1] or ' '):x}.capture"
    written = f"Cable len {words}:" if words is not None else f"Cable{char}len:"
    path.write_text(text.replace("Cable len:", written, 1), encoding="utf-8", newline="")
    device = parse_group("host", [str(path)])
    return [i.message for i in device.issues if "no device writes" in i.message]


def test_each_device_control_character_is_told_and_no_other(tmp_path):
    """Every control character (C0 but tab and line ends, DEL, C1) gives the SYS002 issue naming it as one; a file
    with only characters a description may hold none."""
    controls = [chr(c) for c in range(0x100) if DEVICE_CONTROL.match(chr(c))]
    assert len(controls) == 62
    assert all(DEVICE_UNSEEN.match(c) for c in controls)
    for char in [*controls, *SEEN]:
        found = _issues(tmp_path, char)
        assert bool(found) == (char in controls), (hex(ord(char)), found)
        if found:
            assert found[0].startswith(f"a control character ({ascii(char)}")


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_an_invisible_character_is_told(tmp_path, char):
    (found,) = _issues(tmp_path, char)
    assert found.startswith(f"an invisible character ({ascii(char)}") and "retype the line" in found


@pytest.mark.parametrize("char", OTHER_DIGITS, ids=[f"U+{ord(c):04X}" for c in OTHER_DIGITS])
def test_a_digit_of_another_script_is_told(tmp_path, char):
    (found,) = _issues(tmp_path, char)
    assert found.startswith(f"a digit of another script ({ascii(char)}")


def test_another_scripts_digits_in_its_own_words_are_no_issue(tmp_path):
    """A description written in Japanese, Chinese or Arabic holds that script's digits (`ラック１２`, `机柜３号`, and
    apart from its letters: `ラック １２`, `"رف ٣ - gpu7"`, `خادم رقم ١٢`), one in Hebrew or Arabic bidi marks: in a
    value holding that script's letters they are its own text, not a number a reader takes; the same digits where a
    number stands (` ３ `, `Cable３`, a quoted value of their own beside such a description) are named."""
    for words, told in (("ラック１２", None),
                        ("机柜３号", None),
                        ("ラック １２", None),
                        ('"رف ٣ - gpu7"', None),
                        ("خادم رقم ١٢", None),
                        ('"رف", "٣"', "another script"),
                        ("رف swp١", "another script"),  # (in an ASCII word, whatever the value holds)
                        # ... and the bidi marks right-to-left text holds (RLM in a Hebrew description), not elsewhere
                        ("\"\u05e9\u05e8\u05ea\u200f 12\"", None),
                        ("\"\u05e9\u05e8\u05ea GPU 12\u200f\"", None),  # (after a Latin word: where RTL text has one)
                        ("\u05e9\u05e8\u05ea swp\u200f1", "an invisible character"),
                        ("\"\u05e9\u05e8\u05ea\", \"12\u200f\"", "an invisible character ('\\u200f')"),
                        (" ３ ", "another script"),
                        ("Cable３", "another script"),
                        ("\x00 ３", "2 in all")):  # (beside a control character: that one is named, both counted)
        said = _issues(tmp_path, "", words)
        assert (told in said[0] if told else not said), (words, said)


def test_another_scripts_digits_in_a_config_db_are_named_not_read_as_numbers(tmp_path):
    """`"pfc_enable": "٣"` (Arabic-Indic three) was read as PFC on priority 3 and a speed of "١٠٠٠٠٠" as 100000 Mb/s,
    without a word; swss reads them with std::stoi, which takes ASCII digits only."""
    sonic = next(r for r in READERS if r.label == "sonic-json")
    text = sonic.file.read_text(encoding="utf-8")
    assert '"speed": "100000"' in text
    path = tmp_path / "config_db.json"
    path.write_text(text.replace('"speed": "100000"', '"speed": "\u0661\u0660\u0660\u0660\u0660\u0660"'),
                    encoding="utf-8")
    line = text[:text.index('"speed": "100000"')].count("\n") + 1
    result = api.lint([path], fmt="sonic", jobs=1)
    (issue,) = [f for f in result.findings if f.code == "SYS002" and "another script" in f.message]
    assert issue.source.line == line and "'\\u0661', 6 in all" in issue.message


def test_a_zero_width_space_in_a_port_name_is_named_not_dropped(tmp_path):
    """`interface Ether<U+200B>net1/5` (a line pasted from a web page) looks like Ethernet1/5 and is no Ethernet port:
    the port left the lint without a word; `shut<U+200B>down` read as no shutdown."""
    eos = next(r for r in READERS if r.label == "eos")
    text = eos.file.read_text(encoding="utf-8")
    assert "interface Ethernet1/5\n" in text
    path = tmp_path / "leaf.cfg"
    path.write_text(text.replace("interface Ethernet1/5\n", "interface Ether\u200bnet1/5\n"), encoding="utf-8")
    line = text[:text.index("interface Ethernet1/5\n")].count("\n") + 1
    result = api.lint([path], fmt="arista_eos", jobs=1)
    (issue,) = [f for f in result.findings if f.code == "SYS002" and "invisible character" in f.message]
    assert issue.source.line == line and "'\\u200b'" in issue.message
