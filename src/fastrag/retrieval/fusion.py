"""Combining rankings (reciprocal rank fusion) and skipping near-duplicate results.

Reciprocal rank fusion (Cormack, Clarke and Buettcher, 2009) scores a candidate by
``sum over rankings of 1 / (60 + rank)`` (rank from 1): it needs no score calibration
between a cosine and a BM25 score, and 60 is the constant every implementation uses.
Ties keep the smaller index first, so a fused ranking is deterministic. Each ranking
contributes its best ``FUSION_DEPTH`` candidates.

De-duplication: a candidate whose word trigrams are at least 80 % the same (Jaccard) as
those of an already returned chunk is skipped, and the next candidate is taken
instead. Documents that repeat passages (reports, boilerplate) otherwise fill the k
slots with copies of one passage.

Shared by ``fastrag eval`` (``fastrag.benchmarking.fusion`` re-exports it) and the
store's hybrid search (``MilvusStore.hybrid_search``), so the product de-duplicates
exactly as the evaluation measured. Pure Python, no dependency.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Final, TypeVar

__all__ = [
    "DEDUPE_JACCARD",
    "FUSION_DEPTH",
    "RRF_CONSTANT",
    "Deduplicator",
    "near_duplicate",
    "reciprocal_rank_fusion",
    "rrf_scores",
    "trigrams",
]

RRF_CONSTANT: Final = 60
DEDUPE_JACCARD: Final = 0.8
FUSION_DEPTH: Final = 64
"""Candidates each ranking contributes to a fusion (``fastrag.benchmarking.retrieval``
uses the same depth; a unit test holds them equal)."""

Trigrams = frozenset[tuple[str, ...]]
_Key = TypeVar("_Key", int, str)

_WORD: Final = re.compile(r"\w+")


def rrf_scores(
    rankings: Iterable[Iterable[_Key]], *, constant: int = RRF_CONSTANT
) -> dict[_Key, float]:
    """Each candidate's summed ``1 / (constant + rank)`` over ``rankings`` (best first)."""
    score: dict[_Key, float] = {}
    for ranking in rankings:
        for position, key in enumerate(ranking):
            score[key] = score.get(key, 0.0) + 1.0 / (constant + position + 1)
    return score


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Sequence[int]]], depth: int, *, constant: int = RRF_CONSTANT
) -> list[list[int]]:
    """Per question (row), the best ``depth`` indices by summed ``1 / (constant + rank)``."""
    fused: list[list[int]] = []
    for rows in zip(*rankings, strict=True):
        score = rrf_scores(([int(index) for index in row] for row in rows), constant=constant)
        fused.append(sorted(score, key=lambda i: (-score[i], i))[:depth])
    return fused


def trigrams(text: str) -> Trigrams:
    """Word trigrams of the casefolded text (a text of under three words: its words)."""
    words = _WORD.findall(text.casefold())
    if len(words) < 3:
        return frozenset({tuple(words)})
    return frozenset(zip(words, words[1:], words[2:], strict=False))


def near_duplicate(left: Trigrams, right: Trigrams, threshold: float = DEDUPE_JACCARD) -> bool:
    """Jaccard similarity of two trigram sets at or above ``threshold``."""
    if not left or not right:
        return False
    return len(left & right) / len(left | right) >= threshold


class Deduplicator:
    """Filters rankings of one index, counting the candidates it skips.

    Trigram sets are computed once per indexed text, on first need.
    """

    def __init__(self, texts: Sequence[str], threshold: float = DEDUPE_JACCARD) -> None:
        self._texts = texts
        self._grams: dict[int, Trigrams] = {}
        self.threshold = threshold
        self.skipped = 0

    def _of(self, index: int) -> Trigrams:
        if index not in self._grams:
            self._grams[index] = trigrams(self._texts[index])
        return self._grams[index]

    def filter(self, candidates: Iterable[int]) -> Iterator[int]:
        """``candidates`` in order, without near-duplicates of those already yielded.

        Lazy: a caller that stops after k results pays only for the candidates it saw.
        """
        kept: list[int] = []
        for index in candidates:
            grams = self._of(index)
            if any(near_duplicate(grams, self._of(k), self.threshold) for k in kept):
                self.skipped += 1
                continue
            kept.append(index)
            yield index
