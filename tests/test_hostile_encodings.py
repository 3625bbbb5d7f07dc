"""Text in another encoding than UTF-8, and compressed copies (hostile round 14): every reader (limits.read_text)
names what the file is and what to do, at line 1, exit 2. UTF-16 or UTF-32 without a byte order mark is valid
UTF-8 (ASCII with NULs between the letters): it was "cannot tell which platform wrote this file" (a list of every
platform), or with --format a file of NULs of no port; a UTF-32 file with its mark was called UTF-16."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile

import pytest

from losslessd.errors import EXIT_INPUT
from losslessd.limits import other_encoding

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
