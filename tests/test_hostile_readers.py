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
