"""Okapi BM25 scores of every question against every indexed text, through ``bm25s``.

Why a lexical ranking in an embedding benchmark: a small sentence model ranks the
right passage below similar-sounding ones, while the question's rare words (a name, a
figure, a drug) often pick it out exactly. ``retrieval = "hybrid"`` fuses this ranking
with the dense one (``fastrag.benchmarking.fusion``).

Scoring is ``bm25s`` with ``method="lucene"``: Lucene's idf
``ln(1 + (N - df + 0.5) / (df + 0.5))`` and term weight
``tf / (tf + k1 (1 - b + b |d| / avgdl))`` with k1 = 1.2, b = 0.75 (Lucene's
defaults). Tokens: ``bm25s.tokenize``'s default, lowercase words of two or more
characters, without its English stop list (Lucene's 33 words), no stemming. A word
repeated in a question counts once, since repeating a word in a short question is not
more evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from fastrag._optional import require

__all__ = ["BM25_B", "BM25_K1", "bm25_scores"]

BM25_K1: Final = 1.2
BM25_B: Final = 0.75


def bm25_scores(
    texts: Sequence[str],
    questions: Sequence[str],
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> npt.NDArray[np.float64]:
    """A questions x texts matrix of BM25 scores (0 where no question word occurs)."""
    scores = np.zeros((len(questions), len(texts)), dtype=np.float64)
    if not texts or not questions:
        return scores
    bm25s = require("bm25s", extra="eval", feature="BM25 retrieval settings")
    corpus = bm25s.tokenize(list(texts), stopwords="english", return_ids=False, show_progress=False)
    if not any(corpus):  # no indexable word anywhere: bm25s cannot build a vocabulary
        return scores
    index = bm25s.BM25(method="lucene", k1=k1, b=b, dtype="float64")
    index.index(corpus, show_progress=False)
    vocabulary = index.vocab_dict
    asked = bm25s.tokenize(
        list(questions), stopwords="english", return_ids=False, show_progress=False
    )
    for row, words in enumerate(asked):
        known = list(dict.fromkeys(word for word in words if word in vocabulary))
        if known:
            scores[row] = index.get_scores(known)
    return scores
