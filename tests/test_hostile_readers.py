"""Issue 11, round 2: every device reader (tests/hostile_readers.READERS) given its fixture damaged, through the real
CLI entry: a documented exit, never a traceback, a hang or an internal error; an input error names a file of the
device; a file with nothing readable (or a control character no device writes) never reads as clean. Then every
line of each fixture cut short once, through lint: never an internal error (a rule that met a half-read model)."""

from __future__ import annotations

import pytest

from losslessd import api
from losslessd.errors import InputError
from tests.hostile import run_case
from tests.hostile_readers import BYTES, NEVER_CLEAN, READERS, SPECIAL, mutation_case, place, problems, truncations

MUTATIONS = [*BYTES, *SPECIAL]


@pytest.mark.parametrize("name", MUTATIONS)
@pytest.mark.parametrize("reader", READERS, ids=[r.label for r in READERS])
def test_a_damaged_device_file_ends_as_documented(reader, name, tmp_path):
    outcome = run_case(mutation_case(reader, name), tmp_path)
    assert not problems(outcome, reader), f"{problems(outcome, reader)}\n{outcome.output[-3000:]}"
    if name in NEVER_CLEAN:
        assert outcome.exit in (1, 2), outcome.output[-3000:]


@pytest.mark.parametrize("reader", READERS, ids=[r.label for r in READERS])
def test_every_line_cut_short_is_read_or_refused(reader, tmp_path):
    text = reader.file.read_text(encoding="utf-8")
    cuts = list(truncations(text))
    assert len(cuts) > 5
    failed = []
    for n, (line, column, cut) in enumerate(cuts):
        path = place(reader, tmp_path / str(n), cut.encode())
        try:
            result = api.lint([path], reader.policy, fmt=reader.fmt, jobs=1)
        except InputError as exc:
            assert exc.file, f"line {line} cut at {column}: {exc}"
            continue
        if result.internal_errors:
            failed.append(f"line {line} cut at {column}: {result.internal_errors[0]}")
    assert not failed, "\n".join(failed[:5])


def test_a_control_character_in_a_port_name_is_named_not_dropped(tmp_path):
    """`interface Ethernet1/5<NUL>` is no Ethernet port: the port vanished from the lint without a word (exit 0)."""
    eos = next(r for r in READERS if r.label == "eos")
    text = eos.file.read_text(encoding="utf-8")
    assert "interface Ethernet1/5\n" in text
    path = tmp_path / "leaf.cfg"
    path.write_bytes(text.replace("interface Ethernet1/5\n", "interface Ethernet1/5\0\n").encode())
    line = text[:text.index("interface Ethernet1/5\n")].count("\n") + 1
    result = api.lint([path], fmt="arista_eos", jobs=1)
    (issue,) = [f for f in result.findings if f.code == "SYS002" and "control character" in f.message]
    assert issue.source.line == line and "'\\x00'" in issue.message


def test_each_device_control_character_is_told_and_no_other(tmp_path):
    """The check looks for each character of printable.DEVICE_CONTROL on its own (memchr, not a pass deleting them):
    every one of them in a host capture gives the SYS002 issue, and a file with only other characters (tab, line ends,
    U+0080-U+00FF, U+2028) none."""
    from losslessd.parse import parse_group
    from losslessd.printable import DEVICE_CONTROL

    mlx5 = next(r for r in READERS if r.label == "mlx5")
    text = mlx5.file.read_text(encoding="utf-8")
    assert "Cable len:" in text

    def issues(char: str) -> list[str]:
        path = tmp_path / f"host-{ord(char):x}.capture"
        path.write_text(text.replace("Cable len:", f"Cable{char}len:", 1), encoding="utf-8", newline="")
        device = parse_group("host", [str(path)])
        return [i.message for i in device.issues if "control character" in i.message]

    controls = [chr(c) for c in range(0x100) if DEVICE_CONTROL.match(chr(c))]
    assert len(controls) == 30
    for char in [*controls, "\t", "\x80", "\x85", "\xa0", "\u2028"]:
        found = issues(char)
        assert bool(found) == (char in controls), (hex(ord(char)), found)
        if found:
            assert repr(char) in found[0]
