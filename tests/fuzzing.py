"""Hypothesis strategies shared by the parser fuzz tests."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.conftest import FIXTURES


def raw_texts(platform: str, pattern: str = "*") -> dict[str, str]:
    """The hand-written fixtures of ``platform`` (tests/fixtures/raw/<platform>), by file name: what
    mutated_lines edits."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((FIXTURES / "raw" / platform).glob(pattern))}


def spliced(words: list[str]) -> list[str]:
    """``words`` as tokens mutated_lines appends to a line (after one space or two)."""
    return [" " + w for w in words] + ["  " + w for w in words]


def config_line(words: list[str], indents: list[str]):
    """A line of a CLI config: one of ``indents``, then up to 10 of ``words`` or short random text."""
    return st.tuples(st.sampled_from(indents),
                     st.lists(st.one_of(st.sampled_from(words), st.text(max_size=6)), max_size=10)).map(
        lambda t: t[0] + " ".join(t[1]))


@st.composite
def mutated_lines(draw, texts: dict[str, str], tokens: list[str]) -> str:
    """One of ``texts`` with 1-6 line edits: delete, duplicate, replace, truncate or splice a token."""
    lines = texts[draw(st.sampled_from(sorted(texts)))].split("\n")
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "replace", "truncate", "splice"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "replace":
            lines[i] = draw(st.sampled_from(tokens) | st.text(max_size=20))
        elif op == "truncate":
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        else:
            lines[i] = lines[i] + draw(st.sampled_from(tokens))
    return "\n".join(lines)


def check_text_config(parse, text: str, codes=("SYS002", "SYS003")):
    """A text-config parser gives a serialisable Device whose issues and ports point at real lines of
    the input, or an InputError naming the file and a line; never another exception. Returns the Device."""
    from losslessd.errors import InputError
    from losslessd.model.validate import check as check_model
    from losslessd.parse.base import Input

    try:
        device = parse([Input("fuzz.cfg", text)], "fuzz")
    except InputError as exc:
        assert exc.file == "fuzz.cfg" and exc.line is not None and exc.line >= 1
        return None
    check_model(device)  # every field of its declared type
    device.model_dump_json()  # the model is always serialisable
    last = text.count("\n") + 1
    for issue in device.issues:
        assert issue.code in codes
        assert issue.source.file == "fuzz.cfg" and 1 <= issue.source.line <= last
    for port in device.ports.values():
        assert 1 <= port.source.line <= last
        assert port.pfc_enabled is None or all(0 <= p <= 7 for p in port.pfc_enabled)
    return device
