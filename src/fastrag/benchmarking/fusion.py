"""Combining rankings (reciprocal rank fusion) and skipping near-duplicate results.

The definitions live in ``fastrag.retrieval.fusion``, shared with the store's hybrid
search (``fastrag search`` on a hybrid collection) so that the product fuses and
de-duplicates exactly as ``fastrag eval`` measures; this module re-exports them for
the evaluation's own modules and callers.
"""

from __future__ import annotations

from fastrag.retrieval.fusion import (
    DEDUPE_JACCARD,
    RRF_CONSTANT,
    Deduplicator,
    near_duplicate,
    reciprocal_rank_fusion,
    trigrams,
)

__all__ = [
    "DEDUPE_JACCARD",
    "RRF_CONSTANT",
    "Deduplicator",
    "near_duplicate",
    "reciprocal_rank_fusion",
    "trigrams",
]
