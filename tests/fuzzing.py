"""Hypothesis strategies shared by the parser fuzz tests."""

from __future__ import annotations

from hypothesis import strategies as st


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
