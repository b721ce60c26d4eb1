"""Exact cosine search and the two retrieval protocols.

Vectors are unit length, so cosine similarity is a dot product; with a few thousand
chunks an exact search is a single matrix product (no approximate index, so results do
not depend on index parameters). Ties keep index order.

Protocols:

``k``
    the ``k`` most similar chunks of the whole index (Chroma's protocol: one index over
    all corpora, k = 5). Fixed k favours small chunks on precision and large ones on
    recall.
``tokens``
    chunks in rank order while their summed token counts stay within a budget (at least
    one chunk): every configuration hands the reader about the same amount of text.

Retrieval settings (BM25 fusion, context windows, de-duplication) live in
``fastrag.benchmarking.retrieval_settings``; ``fastrag.benchmarking.ranking`` applies them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "FUSION_DEPTH",
    "Protocol",
    "rank",
    "rank_scores",
    "select",
]

Protocol = Literal["k", "tokens"]

FUSION_DEPTH: Final = 64
"""Candidates taken from each ranking before fusion (and kept after it)."""


def rank(
    questions: npt.NDArray[np.float32], chunks: npt.NDArray[np.float32], depth: int
) -> npt.NDArray[np.int64]:
    """Indices of the ``depth`` most similar chunks per question, best first."""
    if chunks.shape[0] == 0:
        return np.zeros((questions.shape[0], 0), dtype=np.int64)
    return rank_scores(questions @ chunks.T, depth)


def rank_scores(scores: npt.NDArray[np.floating[Any]], depth: int) -> npt.NDArray[np.int64]:
    """Indices of the ``depth`` best scores per row, best first (ties: index order)."""
    depth = min(depth, scores.shape[1])
    # argsort of the negated scores is stable: equal scores keep index order.
    order = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
    return order.astype(np.int64)


def select(
    ranked: Iterable[int], protocol: Protocol, *, k: int, token_budget: int, tokens: Sequence[int]
) -> list[int]:
    """The retrieved chunk indices of one question under ``protocol``.

    ``ranked`` is consumed lazily (it may be a de-duplicating filter).
    """
    if protocol == "k":
        return [int(index) for index in itertools.islice(ranked, k)]
    chosen: list[int] = []
    spent = 0
    for index in ranked:
        cost = tokens[int(index)]
        if chosen and spent + cost > token_budget:
            break
        chosen.append(int(index))
        spent += cost
        if spent >= token_budget:
            break
    return chosen
