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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = ["Protocol", "rank", "select"]

Protocol = Literal["k", "tokens"]


def rank(
    questions: npt.NDArray[np.float32], chunks: npt.NDArray[np.float32], depth: int
) -> npt.NDArray[np.int64]:
    """Indices of the ``depth`` most similar chunks per question, best first."""
    if chunks.shape[0] == 0:
        return np.zeros((questions.shape[0], 0), dtype=np.int64)
    depth = min(depth, chunks.shape[0])
    scores = questions @ chunks.T
    # argsort of the negated scores is stable: equal scores keep index order.
    order = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
    return order.astype(np.int64)


def select(
    ranked: Sequence[int], protocol: Protocol, *, k: int, token_budget: int, tokens: Sequence[int]
) -> list[int]:
    """The retrieved chunk indices of one question under ``protocol``."""
    if protocol == "k":
        return [int(index) for index in ranked[:k]]
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
