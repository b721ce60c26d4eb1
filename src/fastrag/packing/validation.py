"""``ChunkValidation``: what an independent check of one document's chunks observed.

The report is a runtime diagnostic. It never enters chunk metadata or chunk identity, so
two runs that produce byte-identical chunks may still report different timings or cache
hits. ``validate_structure_chunks`` fills the fields it can recompute from the chunks and
the normalized parent; the fields it cannot know (cache hits, model calls, fallbacks,
operation time) stay at their defaults and are filled by the chunking step that ran the
engine, with ``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "CHUNKED",
    "CLASSIFICATIONS",
    "EMPTY",
    "HIERARCHY_ONLY",
    "ChunkValidation",
]

CHUNKED: Final = "chunked"
"""The document has body content and the chunks partition every retained unit."""

EMPTY: Final = "empty"
"""The document retains nothing (empty or fully excluded source); there are no chunks."""

HIERARCHY_ONLY: Final = "hierarchy_only"
"""Every retained unit is a heading: no body to embed. Zero chunks is a valid result;
chunks, if any, must still cover every heading unit exactly once."""

CLASSIFICATIONS: Final = frozenset({CHUNKED, EMPTY, HIERARCHY_ONLY})


@dataclass(frozen=True, slots=True)
class ChunkValidation:
    """Runtime diagnostics kept outside chunk metadata and identity.

    Counts describe one document's chunks as the validator recomputed them:

    ``chunk_count``
        number of chunks validated.
    ``retained_characters``
        source characters the chunks newly retain (overlap and repeated context excluded).
    ``embedding_tokens``
        sum of ``token_counts``.
    ``classification``
        one of ``CLASSIFICATIONS``: ``"chunked"``, ``"empty"``, ``"hierarchy_only"``.
    ``validation_seconds``
        wall time the validation itself took.
    ``token_counts``
        the recounted tokens of each chunk's complete embedding text, in chunk order.
    ``merged_chunks`` / ``split_chunks``
        chunks whose ``chunk_kind`` is ``"merged"`` / ``"split"``.
    ``fallback_chunks``
        chunks whose semantic refinement fell back to the heuristic (set by the step).
    ``oversized_chunks``
        chunks over ``max_tokens`` that carry the ``overflow`` flag.
    ``excluded_characters``
        source characters the normalizer excluded (markup, scripts, whitespace …).
    ``normalization_diagnostics``
        the normalizer's diagnostics for this document, verbatim.
    ``cached_chunks``
        chunks replayed from a cache (set by the step).
    ``small_chunks``
        chunks under ``min_preferred_tokens``.
    ``model_calls`` / ``model_cache_hits`` / ``model_fallbacks``
        chat-refinement observations (set by the step).
    ``operation_seconds``
        wall time of the whole chunking operation (set by the step).
    """

    chunk_count: int
    retained_characters: int
    embedding_tokens: int
    classification: str
    validation_seconds: float = 0.0
    token_counts: tuple[int, ...] = ()
    merged_chunks: int = 0
    split_chunks: int = 0
    fallback_chunks: int = 0
    oversized_chunks: int = 0
    excluded_characters: int = 0
    normalization_diagnostics: tuple[str, ...] = ()
    cached_chunks: int = 0
    small_chunks: int = 0
    model_calls: int = 0
    model_cache_hits: int = 0
    model_fallbacks: tuple[str, ...] = ()
    operation_seconds: float = 0.0
