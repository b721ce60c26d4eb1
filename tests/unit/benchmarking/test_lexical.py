"""BM25 through bm25s against Lucene's formula computed by hand."""

from __future__ import annotations

import math

import pytest

from fastrag.benchmarking.lexical import bm25_scores

pytest.importorskip("bm25s", reason="needs fastrag-ai[eval]")

TEXTS = ["The cat sat on the mat", "Dogs bark loudly", "A cat and a dog", ""]


def _lucene(tf: int, df: int, n: int, length: int, average: float) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * length / average))


def test_scores_follow_lucene_bm25() -> None:
    # Indexed words (stop words "the", "on", "and" and one-letter "a" dropped):
    # [cat sat mat], [dogs bark loudly], [cat dog], [] -> average length 8 / 4 = 2.
    scores = bm25_scores(TEXTS, ["Where is the cat?", "dog", "mat cat"])
    cat = [_lucene(1, 2, 4, 3, 2.0), 0.0, _lucene(1, 2, 4, 2, 2.0), 0.0]
    assert scores[0] == pytest.approx(cat)  # "where" and "is" occur nowhere
    assert scores[1] == pytest.approx([0.0, 0.0, _lucene(1, 1, 4, 2, 2.0), 0.0])  # no stemming
    assert scores[2][0] == pytest.approx(cat[0] + _lucene(1, 1, 4, 3, 2.0))


def test_a_repeated_question_word_counts_once() -> None:
    once, twice = bm25_scores(TEXTS, ["cat", "cat cat CAT"])
    assert list(once) == list(twice)


def test_no_shared_word_and_empty_inputs_give_zeros() -> None:
    assert bm25_scores(TEXTS, ["zebra"]).tolist() == [[0.0, 0.0, 0.0, 0.0]]
    assert bm25_scores([], ["cat"]).shape == (1, 0)
    assert bm25_scores(["the a", ""], ["the cat"]).tolist() == [[0.0, 0.0]]
