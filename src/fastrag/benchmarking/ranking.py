"""Per-question candidate rankings under a ``RetrievalSettings`` (dense, BM25, fused).

The evaluation scores the first k (or first N tokens of) candidates; this module only
decides their order. Every ranking is exact (a matrix product or BM25 over the whole
index), so results never depend on approximate-index parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from fastrag.benchmarking.fusion import reciprocal_rank_fusion
from fastrag.benchmarking.lexical import bm25_scores
from fastrag.benchmarking.retrieval import FUSION_DEPTH, rank_scores
from fastrag.benchmarking.retrieval_settings import RetrievalSettings
from fastrag.retrieval.sentences import SentenceIndex

if TYPE_CHECKING:
    from fastrag.benchmarking._embedding import CachedEmbedder

__all__ = ["IndexTexts", "candidate_rankings"]

Vectors = npt.NDArray[np.float32]
EmbedProgress = Callable[[int, int], object]


@dataclass(frozen=True, slots=True)
class IndexTexts:
    """The texts of one index, aligned by chunk: what is returned, embedded, windowed."""

    returned: Sequence[str]
    embedded: Sequence[str]
    windows: Sequence[str] | None = None

    def window_texts(self) -> Sequence[str]:
        """The windows (a setting that reads windows must have made them)."""
        if self.windows is None:
            raise ValueError("these retrieval settings read context windows; none were made")
        return self.windows


def _dense_scores(
    questions: Vectors,
    texts: IndexTexts,
    settings: RetrievalSettings,
    embedder: CachedEmbedder,
    progress: EmbedProgress | None,
) -> npt.NDArray[np.float32]:
    """Cosine similarity (unit vectors), or the mean of the chunk's, window's (and sentence's)."""
    if settings.embed == "window":
        return questions @ embedder.embed(texts.window_texts(), progress).T
    own = questions @ embedder.embed(texts.embedded, progress).T
    if settings.embed == "chunk":
        return own
    window = questions @ embedder.embed(texts.window_texts(), progress).T
    if settings.embed == "fuse_sentences":
        best = _best_sentence_scores(questions, texts.returned, embedder, progress)
        return ((own + window + best) / np.float32(3.0)).astype(np.float32, copy=False)
    # Float32 throughout, like the stored vectors: ties then break as in a vector store.
    return ((own + window) / np.float32(2.0)).astype(np.float32, copy=False)


def _best_sentence_scores(
    questions: Vectors,
    returned: Sequence[str],
    embedder: CachedEmbedder,
    progress: EmbedProgress | None,
) -> npt.NDArray[np.float32]:
    """Per question and chunk, the highest cosine of any of the chunk's sentences."""
    sentences = SentenceIndex(returned)
    scores = questions @ embedder.embed(sentences.texts, progress).T
    best: npt.NDArray[np.float32] = np.maximum.reduceat(scores, sentences.starts, axis=1)
    return best


def _lexical_ranking(
    texts: IndexTexts, settings: RetrievalSettings, questions: Sequence[str]
) -> list[list[int]]:
    """BM25 ranking per question, stopping at the first text sharing no question word."""
    indexed = texts.window_texts() if settings.bm25_over == "window" else texts.returned
    scores = bm25_scores(indexed, questions)
    order = rank_scores(scores, FUSION_DEPTH)
    return [[int(i) for i in row if scores[number, i] > 0.0] for number, row in enumerate(order)]


def candidate_rankings(
    question_vectors: Vectors,
    questions: Sequence[str],
    texts: IndexTexts,
    settings: RetrievalSettings,
    embedder: CachedEmbedder,
    *,
    depth: int,
    progress: EmbedProgress | None = None,
) -> list[list[int]]:
    """Best-first chunk indices per question.

    ``depth``: candidates kept by a dense-only ranking (enough for the token-budget
    protocol); BM25 and fused rankings keep ``FUSION_DEPTH`` per ranking.
    """
    if not texts.returned:
        return [[] for _ in questions]
    rankings: list[list[list[int]]] = []
    if settings.retrieval != "bm25":
        dense = _dense_scores(question_vectors, texts, settings, embedder, progress)
        keep = depth if settings.retrieval == "dense" else FUSION_DEPTH
        rankings.append(rank_scores(dense, keep).tolist())
    if settings.retrieval != "dense":
        rankings.append(_lexical_ranking(texts, settings, questions))
    if len(rankings) == 1:
        return rankings[0]
    return reciprocal_rank_fusion(rankings, FUSION_DEPTH)
