"""Text in another encoding than UTF-8, and compressed copies (hostile round 14): every reader (limits.read_text)
names what the file is and what to do, at line 1, exit 2. UTF-16 or UTF-32 without a byte order mark is valid
UTF-8 (ASCII with NULs between the letters): it was "cannot tell which platform wrote this file" (a list of every
platform), or with --format a file of NULs of no port; a UTF-32 file with its mark was called UTF-16."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import random
import tarfile
import zipfile

import pytest

from losslessd.errors import EXIT_INPUT, InputError
from losslessd.limits import other_encoding, read_text

from .clirun import ROOT, losslessd

EOS = (ROOT / "tests" / "fixtures" / "raw" / "arista_eos" / "roce-leaf.cfg").read_text(encoding="utf-8")
POLICY = "name: x\nextends: roce-dscp26\n"

ENCODED = [
    ("utf-16", "UTF-16LE text:"), ("utf-16-be", "UTF-16BE text without a byte order mark"),
    ("utf-16-le", "UTF-16LE text without a byte order mark"), ("utf-32", "UTF-32LE text:"),
    ("utf-32-le", "UTF-32LE text without a byte order mark"), ("utf-32-be", "UTF-32BE text without a byte order mark"),
]


def _zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:  # stored, not deflated: the config's text stands in it as written
        z.writestr("leaf1.cfg", data)
    return out.getvalue()


PACKED = [(gzip.compress, "compressed with gzip"), (bz2.compress, "compressed with bzip2"),
          (lzma.compress, "compressed with xz"), (_zip, "compressed with zip")]


@pytest.mark.parametrize(("encoding", "says"), ENCODED)
@pytest.mark.parametrize("fmt", [None, "eos"])
def test_a_config_in_a_wider_encoding_is_named(encoding, says, fmt, tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(EOS.encode(encoding))
    ran = losslessd("lint", *(["--format", fmt] if fmt else []), str(path))
    assert ran.returncode == EXIT_INPUT
    assert f"{path}:1: {says}" in ran.stderr and "save the file as UTF-8" in ran.stderr, ran.stderr


@pytest.mark.parametrize(("encoding", "says"), ENCODED)
def test_a_policy_in_a_wider_encoding_is_named(encoding, says, tmp_path):
    path = tmp_path / "p.yaml"
    path.write_bytes(POLICY.encode(encoding))
    ran = losslessd("policy", "check", str(path))
    assert ran.returncode == EXIT_INPUT
    assert f"{path}:1: {says}" in ran.stderr, ran.stderr


@pytest.mark.parametrize(("pack", "says"), PACKED)
def test_a_compressed_config_is_named(pack, says, tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(pack(EOS.encode()))
    ran = losslessd("lint", str(path))
    assert ran.returncode == EXIT_INPUT
    assert f"{path}:1: {says}, not text: decompress it" in ran.stderr, ran.stderr


@pytest.mark.parametrize("data", [
    b"", b"\0" * 64, EOS.encode(), EOS.replace("description", "description \0").encode(),
    "description ラック１２\n".encode(), "hostname \u0440\u0443\n".encode("utf-8"),
])
def test_utf8_and_nul_files_are_no_other_encoding(data):
    # a file of NULs, or a NUL in UTF-8 text, stays the SYS002 and "empty" cases it was (tests/hostile_readers.py)
    assert other_encoding(data) is None


def _other_encoding_before(data: bytes) -> str | None:
    """limits.other_encoding as it was before Session 45, part c (every magic tried on every file)."""
    from losslessd import limits

    for bom, name in limits._BOMS:
        if data.startswith(bom):
            return f"{name} text: losslessd reads UTF-8 (save the file as UTF-8)"
    for magic, name, tool in limits._PACKED:
        if data.startswith(magic):
            return f"compressed with {name}, not text: decompress it ({tool}) and give the file it holds"
    for magic, offset, what in limits._NOT_TEXT:
        if data.startswith(magic, offset):
            return what
    if b"\x00" not in data[:limits._SAMPLE]:
        return None
    return other_encoding(data)  # (the NUL lanes, unchanged)


def test_other_encoding_says_what_it_said_with_the_first_byte_screened():
    """other_encoding tries the byte order marks and packed formats only on a file opening with one of their first
    bytes (Session 45, part c): both ways on every magic, each cut short, behind another byte and at the tar offset,
    on UTF-16/32 text with and without a mark, and on random bytes; a plain config is told without a startswith."""
    from losslessd import limits

    rng = random.Random(4545)
    magics = [bom for bom, _ in limits._BOMS] + [m for ms, _, _ in limits._PACKED for m in ms]
    magics += [b" " * 257 + m for ms, _, _ in limits._NOT_TEXT for m in ms] + [m for ms, _, _ in limits._NOT_TEXT
                                                                                for m in ms]
    texts = [EOS.encode(), EOS.encode("utf-16-le"), EOS.encode("utf-16-be"), EOS.encode("utf-32-le"),
             EOS.encode("utf-16"), b"", b"\0", b"\0" * 5000, b"x" * 5000 + b"\0"]
    datas = texts + [m + t for m in magics for t in texts] + [m[:k] for m in magics for k in range(len(m))]
    datas += [b"#" + m for m in magics] + [bytes(rng.randrange(256) for _ in range(rng.randrange(300)))
                                         for _ in range(3000)]
    said = 0
    for data in datas:
        assert other_encoding(data) == _other_encoding_before(data), data[:40]
        said += other_encoding(data) is not None
    assert said >= len(magics)
    calls = []

    class Counted(bytes):
        def startswith(self, *args):  # (bytes' own, counted)
            calls.append(args)
            return super().startswith(*args)

    assert other_encoding(Counted(EOS.encode())) is None and len(calls) == len(limits._NOT_TEXT)  # (fails: 12 calls)


# Round 18: what holds a config but is no text of one, and text that is no UTF-8 named for what it is.
def _tar(form: int) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=form) as tar:  # a tar's members stand in it as written
        member = tarfile.TarInfo("leaf1.cfg")
        member.size = len(EOS.encode())
        tar.addfile(member, io.BytesIO(EOS.encode()))
    return out.getvalue()


@pytest.mark.parametrize(("data", "says"), [
    (_tar(tarfile.USTAR_FORMAT), "a tar archive, not text: unpack it"),
    (_tar(tarfile.GNU_FORMAT), "a tar archive, not text: unpack it"),
    (_tar(tarfile.PAX_FORMAT), "a tar archive, not text: unpack it"),
    # ISO 32000-1 7.5.2: a PDF's first line is "%PDF-1.n", then a comment line of 4 bytes above 127
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + EOS.encode(), "a PDF document, not text"),
])
def test_an_archive_or_document_holding_a_config_is_named(data, says, tmp_path):
    # a tar of the config was read as the config (its headers a SYS002 of NULs), findings and exit 1
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(data)
    ran = losslessd("lint", str(path))
    assert ran.returncode == EXIT_INPUT, ran.stdout
    assert f"{path}:1: {says}" in ran.stderr, ran.stderr


def test_a_7z_copy_is_named():
    # 7-Zip's 7zFormat.txt: the SignatureHeader begins '7', 'z', BC, AF, 27, 1C, then the version 0, 4
    assert other_encoding(b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(24)) == \
        "compressed with 7z, not text: decompress it (7z x) and give the file it holds"


def test_text_of_a_legacy_encoding_is_named_with_its_line_column_and_what_to_do(tmp_path):
    # a description typed in a Windows editor: "Café" saved as Windows-1252, é as the byte E9
    path = tmp_path / "leaf1.cfg"
    lines = EOS.encode().split(b"\n")
    lines.insert(2, "   description Caf\u00e9 \u201crack 12\u201d".encode("cp1252"))
    path.write_bytes(b"\n".join(lines))
    ran = losslessd("lint", str(path))
    assert ran.returncode == EXIT_INPUT
    assert (f"{path}:3: not UTF-8 text: byte 0xE9 at column 19 is 'é' in Windows-1252 (Latin-1), which the file "
            "seems to be written in: convert it to UTF-8 (iconv -f WINDOWS-1252 -t UTF-8)") in ran.stderr, ran.stderr
    # among UTF-8 characters converting the whole file would spoil them: the character is to be retyped
    lines.insert(1, "   description ラック１２".encode())
    path.write_bytes(b"\n".join(lines))
    ran = losslessd("lint", str(path))
    assert f"{path}:4: not UTF-8 text: byte 0xE9 at column 19 is 'é' in Windows-1252 (Latin-1) among UTF-8 " \
           "characters: retype that character" in ran.stderr, ran.stderr
    # a policy alike (every reader reads text through limits.read_text)
    policy = tmp_path / "p.yaml"
    policy.write_bytes(POLICY.encode() + "description: r\u00e9seau\n".encode("latin-1"))
    ran = losslessd("policy", "check", str(policy))
    assert ran.returncode == EXIT_INPUT and f"{policy}:3: not UTF-8 text: byte 0xE9 at column 15" in ran.stderr


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_a_file_cut_inside_a_utf8_character_is_named_as_cut_short(cut, tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(EOS.encode() + "   description \U0001f680"[:-1].encode() + "\U0001f680".encode()[:cut])
    ran = losslessd("lint", str(path))
    assert ran.returncode == EXIT_INPUT
    line = EOS.count("\n") + 1
    assert f"{path}:{line}: the file ends inside a UTF-8 character (byte 0xF0 at column 16 begins one that is cut " \
           "off): a copy cut short? fetch the file again" in ran.stderr, ran.stderr


def test_binary_data_is_still_called_binary(tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(b"hostname x\n\x01\x02\x9d\xff\n")
    ran = losslessd("lint", str(path))
    assert ran.returncode == EXIT_INPUT
    assert f"{path}:2: not UTF-8 text (is this a binary file?): bad byte 0x9D at column 3 (offset 13)" in ran.stderr


@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ('{"a": ', "}")])
def test_json_nested_past_the_parser_is_named_at_its_line_and_column(opening, closing, tmp_path):
    # a CONFIG_DB value nested 100,000 deep was "invalid JSON: nested deeper than ..." with no line (a 16 KB file);
    # brackets inside strings open no level
    sonic = (ROOT / "examples" / "fabric" / "leaf1" / "config_db.json").read_text(encoding="utf-8")
    at = sonic.index('"PORT"')
    deep = '"ZZZ": "[[[{", "DEEP": ' + opening * 100_000 + "1" + closing * 100_000 + ",\n"
    path = tmp_path / "config_db.json"
    path.write_text(sonic[:at] + deep + sonic[at:], encoding="utf-8")
    ran = losslessd("lint", str(path))
    assert ran.returncode == EXIT_INPUT
    line = sonic.count("\n", 0, at) + 1
    # the innermost bracket, 100,001 levels down (the CONFIG_DB's own object is the first)
    column = at - sonic.rfind("\n", 0, at) + len('"ZZZ": "[[[{", "DEEP": ') + len(opening) * 99_999
    assert (f"{path}:{line}: invalid JSON: nested deeper than Python's JSON parser reads (about 1,000 levels): "
            f"100,001 levels at this bracket (column {column})") in ran.stderr, \
        ran.stderr


def test_text_of_another_legacy_encoding_is_no_binary_file(tmp_path):
    # a description in Shift-JIS ("サーバー": 83 54 81 5B 83 6F 81 5B, JIS X 0208 by Python's codec); 0x81 is no
    # Windows-1252 character
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(b"hostname leaf1\n   description " + "サーバー".encode("shift_jis") + b"\n")
    ran = losslessd("lint", str(path))
    assert ran.returncode == EXIT_INPUT
    assert f"{path}:2: not UTF-8 text: byte 0x83 at column 16, in text of another encoding (Shift-JIS, GBK, " \
           "EUC-KR, Windows-1251, KOI8-R?): save the file as UTF-8" in ran.stderr, ran.stderr


# Descriptions as each legacy encoding writes them (Python's codecs, after each encoding's published table): every
# byte above 127 but five is a Windows-1252 character, so each of these was "is 'Ñ' in Windows-1252 ..., which the
# file seems to be written in: convert it (iconv -f WINDOWS-1252)", an iconv that garbles it without a word
@pytest.mark.parametrize(("text", "encoding"), [
    ("Стойка 12 к ядру", "cp1251"), ("Стойка 12 к ядру", "koi8_r"), ("Σύνδεση", "cp1253"), ("שרת", "cp1255"),
    ("日本", "shift_jis"), ("テスト", "shift_jis"), ("上海", "gbk"), ("机柜上联", "gbk"), ("서버 랙", "euc_kr"),
    ("Łącze", "iso8859_2"),
])
def test_text_of_another_legacy_encoding_is_not_called_windows_1252(text, encoding, tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(f"hostname leaf1\n   description {text}\n".encode(encoding))
    with pytest.raises(InputError, match="in text of another encoding") as said:
        read_text(path)
    assert "Windows-1252" not in said.value.message


@pytest.mark.parametrize("text", ["Liaison café vers le cœur", "ligação de ação", "l’été «rack» à 20°", "¿Qué?",
                                  "Größe Übergang", "Straße", "España", "Año nuevo", "Señal", "città", "£100 rack"])
def test_western_european_text_is_still_called_windows_1252(text, tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(f"hostname leaf1\n   description {text}\n".encode("cp1252"))
    with pytest.raises(InputError, match=r"in Windows-1252 \(Latin-1\), which the file seems to be written in"):
        read_text(path)


# Windows-1250 (Central European) text, as Python's cp1250 codec (Microsoft's code page table) writes it: every byte
# of it is a letter or mark in Windows-1252 too ("Řízení" reads "Øízení", "Łódź" "£ódŸ"), so it was called
# Windows-1252 with an iconv that garbles it. Where the bytes do not tell which it is, no conversion is offered
@pytest.mark.parametrize(("text", "said"), [
    ("Řízení sítě", "'Ř' in Windows-1250 (Central European) and 'Ø' in Windows-1252 (Latin-1)"),  # Czech
    ("Příliš žluťoučký kůň", "'ř' in Windows-1250 (Central European)"),  # (Czech: ť, 0x9D, is no Windows-1252 byte)
    ("Łódź", "'Ł' in Windows-1250 (Central European) and '£' in Windows-1252 (Latin-1)"),  # Polish
    ("Zażółć gęślą jaźń", "'ż' in Windows-1250 (Central European)"),  # (Polish: four letters together)
    ("Győr hálózat", "'õ' in Windows-1252 (Latin-1) and 'ő' in Windows-1250 (Central European)"),  # Hungarian
    ("Szolgáltatás fűtés", "'á' in Windows-1250 (Central European)"),
])
def test_central_european_text_is_not_called_windows_1252(text, said, tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(f"hostname leaf1\n   description {text}\n".encode("cp1250"))
    with pytest.raises(InputError) as refused:
        read_text(path)
    assert refused.value.message.endswith(f" is {said}, in a legacy 8-bit encoding (Windows-1252 or -1250?): open it "
                                          "in an editor that shows its text right and save it as UTF-8"), \
        refused.value.message
    assert "iconv" not in refused.value.message


def test_a_central_european_character_among_utf8_ones_is_named_in_both_code_pages(tmp_path):
    path = tmp_path / "leaf1.cfg"
    path.write_bytes("hostname leaf1\n   description Řízení sít".encode() + "ě".encode("cp1250") + b"\n")
    with pytest.raises(InputError, match="byte 0xEC at column 26 is 'ì' in Windows-1252 \\(Latin-1\\) and 'ě' in "
                       "Windows-1250 \\(Central European\\) among UTF-8 characters: retype that character"):
        read_text(path)


def test_the_column_of_a_bad_byte_counts_characters(tmp_path):
    # "ラック" is 9 bytes of UTF-8 and 3 characters: the Windows-1252 é after it is at column 23 as an editor shows it
    # (byte 29 of the line)
    path = tmp_path / "leaf1.cfg"
    path.write_bytes(b"hostname leaf1\n   description " + "ラック".encode() + b" Caf\xe9\n")
    ran = losslessd("lint", str(path))
    assert f"{path}:2: not UTF-8 text: byte 0xE9 at column 23 is 'é' in Windows-1252 (Latin-1) among UTF-8" \
        in ran.stderr, ran.stderr


# Session 43 (part a): the signatures are `startswith` tests, no pattern compiled by every lint. Each signature's
# bytes come from its format's own writer (the standard library's gzip, bz2 at each block size, lzma, zipfile,
# tarfile in its three formats) or its specification (RFC 8878 3.1.1 for zstd, 7-Zip's 7zFormat.txt, ISO 32000-1
# 7.5.2 for a PDF); each is named, and neither one cut short by a byte, nor one a byte further in, nor one with any
# byte changed, is named for it (a bzip2 block size must be 1-9: "BZh0" is none).
def _signed() -> list[tuple[bytes, str]]:
    text = EOS.encode()
    return [(gzip.compress(text), "gzip"), (_zip(text), "zip"), (lzma.compress(text), "xz"),
            *[(bz2.compress(text, size), "bzip2") for size in range(1, 10)],
            (b"\x28\xb5\x2f\xfd" + bytes(16), "zstd"), (b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(24), "7z"),
            *[(_tar(form), "tar archive") for form in (tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT)],
            (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + text, "PDF document")]


# (how long each signature is, and where it stands: gzip 2 bytes, zip 4, xz 6, bzip2 10, zstd 4, 7z 6, PDF 5; a
# tar's "ustar" and NUL, or GNU's "ustar" and two blanks then NUL, at offset 257)
_SIGNATURE = {"gzip": (0, 2), "zip": (0, 4), "xz": (0, 6), "bzip2": (0, 10), "zstd": (0, 4), "7z": (0, 6),
              "PDF document": (0, 5), "tar archive": (257, 263)}


@pytest.mark.parametrize(("data", "kind"), _signed())
def test_each_signature_is_named_and_nothing_like_it(data, kind):
    assert kind in (other_encoding(data) or ""), kind
    start, end = _SIGNATURE[kind]
    if kind == "tar archive" and data[257:265] == b"ustar  \x00":
        end = 265
    signature, rest = data[:end], b"a" * 600  # (no NUL after it: not a wider encoding either)
    assert kind in (other_encoding(signature + rest) or "")
    assert other_encoding(signature[:-1]) is None
    assert other_encoding(signature[:-1] + rest) is None
    assert other_encoding(b"x" + signature + rest) is None
    for at in range(start, end):
        for byte in (0x00, 0x30, 0x7f, 0xff):
            still = (kind == "bzip2" and at == 3 and 0x31 <= byte <= 0x39  # (another block size)
                     or kind == "tar archive" and at == 262 and byte == 0)  # (GNU's "ustar " now POSIX's)
            if byte != signature[at] and not still:
                changed = signature[:at] + bytes([byte]) + signature[at + 1:] + rest
                assert other_encoding(changed) is None, (kind, at, byte)
