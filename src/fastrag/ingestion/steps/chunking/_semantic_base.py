"""The constructor both embedding-distance chunkers share (seed 001 gives them one signature).

``EmbeddingSemanticChunker`` (our algorithm, exact source slices) and
``LangchainSemanticChunker`` (LangChain's, wrapped) differ in how they split, not in what
they are configured with: the settings are checked once, here, into ``SemanticSettings``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from fastrag.ingestion.steps.chunking._semantic_settings import SemanticSettings, check_embedder
from fastrag.ingestion.steps.chunking.base import Chunker

if TYPE_CHECKING:
    from fastrag.ingestion.steps.embedding import Embedder
    from fastrag.pipeline import CacheSetting, Policy

__all__ = ["SentenceEmbeddingChunker"]


class SentenceEmbeddingChunker(Chunker):
    """Base of the chunkers that cut between sentences whose embeddings differ most."""

    accepted_content_formats = frozenset({"markdown", "text"})

    def __init__(
        self,
        *,
        embeddings: Embedder,
        buffer_size: int = 1,
        breakpoint_threshold_type: Literal[
            "percentile", "standard_deviation", "interquartile", "gradient"
        ] = "percentile",
        breakpoint_threshold_amount: float | None = None,
        number_of_chunks: int | None = None,
        sentence_split_regex: str = r"(?<=[.?!])\s+",
        min_chunk_size: int | None = None,
        add_start_index: bool = False,
        batch_size: int = 64,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        self.embeddings = check_embedder(embeddings)
        self.settings = SemanticSettings.of(
            buffer_size=buffer_size,
            breakpoint_threshold_type=breakpoint_threshold_type,
            breakpoint_threshold_amount=breakpoint_threshold_amount,
            number_of_chunks=number_of_chunks,
            sentence_split_regex=sentence_split_regex,
            min_chunk_size=min_chunk_size,
            add_start_index=add_start_index,
            batch_size=batch_size,
        )
        super().__init__(cache=cache, policy=policy)
