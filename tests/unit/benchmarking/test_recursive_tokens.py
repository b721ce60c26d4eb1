"""The LangChain-semantics recursive splitter, on cases traced by hand through its rules."""

from __future__ import annotations

import pytest

from fastrag.benchmarking._recursive_tokens import recursive_token_spans

TEXT = "aaaa bbbb cccc\n\ndddd eeee ffff gggg hhhh"


def _texts(chunk_size: int, overlap: int) -> list[str]:
    spans = recursive_token_spans(TEXT, chunk_size=chunk_size, chunk_overlap=overlap, count=len)
    return [TEXT[start:end] for start, end in spans]


def test_paragraphs_then_words_without_overlap() -> None:
    # "\n\n" splits first; the 26-character second paragraph descends to " " (no "\n",
    # ".", "?", "!" in it), whose 5-character pieces merge while the sum stays <= 20.
    assert _texts(20, 0) == ["aaaa bbbb cccc", "dddd eeee ffff gggg", "hhhh"]
    spans = recursive_token_spans(TEXT, chunk_size=20, chunk_overlap=0, count=len)
    assert spans == [(0, 14), (16, 35), (36, 40)]


def test_overlap_keeps_trailing_pieces_while_their_sum_exceeds_nothing_more() -> None:
    # After emitting d..g (20), pieces are dropped from the front until the total is
    # <= 10 and the next piece fits: f and g stay.
    assert _texts(20, 10) == ["aaaa bbbb cccc", "dddd eeee ffff gggg", "ffff gggg hhhh"]


def test_merging_fills_a_chunk_up_to_exactly_chunk_size() -> None:
    # The 14-character first paragraph is not < 14, so it descends to words, whose
    # merge (4 + 5 + 5 = 14, not > 14) rebuilds it whole.
    assert _texts(14, 0) == ["aaaa bbbb cccc", "dddd eeee", "ffff gggg", "hhhh"]


def test_spans_are_exact_offsets_even_for_repeated_text() -> None:
    text = "same words here\n\nsame words here\n\nsame words here"
    spans = recursive_token_spans(text, chunk_size=16, chunk_overlap=0, count=len)
    assert spans == [(0, 15), (17, 32), (34, 49)]


def test_overlap_larger_than_size_is_refused() -> None:
    with pytest.raises(ValueError, match="chunk_overlap"):
        recursive_token_spans(TEXT, chunk_size=5, chunk_overlap=6, count=len)
