"""Strategies and invariant checks shared by the character splitter tests.

The invariants are checked against the source alone, never against the splitter's own
helpers, so a bug in the shared span arithmetic cannot hide itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hypothesis import strategies as st

from fastrag.models import Document

# Words of varied length (some longer than small budgets), Unicode, and every kind of
# whitespace the separators care about, so documents have paragraphs, lines and words.
_TOKENS = st.sampled_from(
    [
        "a",
        "bb",
        "ccc",
        "word",
        "longerword",
        "x" * 23,
        "é",
        "日本語",
        "🙂",
        ".",
        ", ",
        " ",
        " ",
        "  ",
        "\t",
        "\n",
        "\n",
        "\n\n",
        "\n\n\n",
        " \n ",
    ]
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Source text, sometimes a block repeated verbatim (to test offsets of repeats)."""
    block = "".join(draw(st.lists(_TOKENS, max_size=60)))
    repeats = draw(st.integers(min_value=1, max_value=4))
    return block * repeats


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    """A ``(chunk_size, chunk_overlap)`` pair with ``0 <= overlap < size``."""
    chunk_size = draw(st.integers(min_value=1, max_value=60))
    chunk_overlap = draw(st.integers(min_value=0, max_value=chunk_size - 1))
    return chunk_size, chunk_overlap


def pieces_of(split: Iterable[str | tuple[str, Mapping[str, Any]]]) -> list[tuple[str, int]]:
    """``(text, start_index)`` of every yielded piece; each must carry its offset."""
    result: list[tuple[str, int]] = []
    for piece in split:
        assert isinstance(piece, tuple), f"expected a (text, metadata) piece, got {piece!r}"
        text, metadata = piece
        start = metadata["start_index"]
        assert isinstance(start, int)
        result.append((text, start))
    return result


def check_invariants(source: str, pieces: list[tuple[str, int]], chunk_overlap: int) -> None:
    """What every character splitter guarantees, whatever its separators."""
    covered = [False] * len(source)
    previous_start, previous_end = -1, 0
    for text, start in pieces:
        # the recorded offset points at exactly this text
        assert source[start : start + len(text)] == text, (text, start)
        # a chunk is never empty and never starts or ends with whitespace
        assert text and text == text.strip(), repr(text)
        # order: each chunk starts after the previous one starts
        assert start > previous_start, (previous_start, start)
        # overlap with the previous chunk never exceeds chunk_overlap
        assert previous_end - start <= chunk_overlap, (previous_end, start)
        previous_start, previous_end = start, start + len(text)
        for index in range(start, start + len(text)):
            covered[index] = True
    lost = [
        char for char, seen in zip(source, covered, strict=True) if not seen and not char.isspace()
    ]
    assert not lost, f"non-whitespace characters missing from every chunk: {lost!r}"


def document(content: str) -> Document:
    return Document("doc", "doc.txt", content)
