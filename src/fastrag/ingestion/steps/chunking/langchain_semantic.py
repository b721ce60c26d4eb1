"""``LangchainSemanticChunker``: LangChain Experimental's ``SemanticChunker``, our Embedder.

A thin wrapper, on purpose: sentence grouping, thresholds and chunk assembly are all
LangChain's, so the output is exactly what ``SemanticChunker`` returns for the same
vectors — including its whitespace handling (sentences are rejoined with one space) and
its ``start_index`` (a running sum of the previous chunks' lengths, not a source offset).
Use ``EmbeddingSemanticChunker`` when exact source slices matter. Requires the extra
``fastrag-ai[langchain]``, imported when the first document is split.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from fastrag._optional import require
from fastrag.exceptions import ChunkingError
from fastrag.ingestion.steps.chunking._semantic_base import SentenceEmbeddingChunker
from fastrag.ingestion.steps.chunking._semantic_settings import (
    embedder_identity,
)
from fastrag.ingestion.steps.chunking.base import Piece

if TYPE_CHECKING:
    from fastrag.models import Document

__all__ = ["LangchainSemanticChunker"]

_VERSION: Final = 1
_FEATURE: Final = "LangchainSemanticChunker"


class LangchainSemanticChunker(SentenceEmbeddingChunker):
    """Split with LangChain Experimental's SemanticChunker, embedding with an SDK Embedder.

    A thin wrapper: sentence grouping, distance thresholds and chunk assembly are all
    LangChain's, so output matches SemanticChunker exactly (it trims and rejoins
    sentences rather than preserving source whitespace — use EmbeddingSemanticChunker
    when exact source slices matter). Only the embedding model is ours.
    """

    def config(self) -> Mapping[str, Any]:
        """Return splitter settings and the embedder's nonsecret identity."""
        return {
            "version": _VERSION,
            "langchain_experimental": _installed_version(),
            "embeddings": embedder_identity(self.embeddings),
            **self.settings.config(),
        }

    def split(self, document: Document) -> Iterator[Piece]:
        """Require asynchronous model evaluation before yielding any pieces."""
        raise ChunkingError(
            f"{self.name} embeds sentences with an asynchronous model and cannot split "
            f"synchronously (document {document.id!r}); use 'async for piece in "
            f"chunker.asplit(document)' or bind the chunker into a pipeline "
            f"(chunker(documents))"
        )

    async def asplit(self, document: Document) -> AsyncIterator[Piece]:
        """Run LangChain's splitter in a thread, embedding on this event loop."""
        splitter_module = require(
            "langchain_experimental.text_splitter", extra="langchain", feature=_FEATURE
        )
        from fastrag.ingestion.steps.chunking._langchain_embeddings import LoopEmbeddings

        settings = self.settings
        adapter = LoopEmbeddings(self.embeddings, asyncio.get_running_loop(), settings.batch_size)
        splitter = splitter_module.SemanticChunker(
            embeddings=adapter,
            buffer_size=settings.buffer_size,
            add_start_index=settings.add_start_index,
            breakpoint_threshold_type=settings.threshold_type,
            breakpoint_threshold_amount=settings.amount,
            number_of_chunks=settings.number_of_chunks,
            sentence_split_regex=settings.pattern.pattern,
            min_chunk_size=settings.min_chunk_size,
        )
        try:
            produced = await asyncio.to_thread(splitter.create_documents, [document.content])
        finally:
            adapter.close()
        for chunk in produced:
            metadata = dict(chunk.metadata)
            yield (chunk.page_content, metadata) if metadata else chunk.page_content


def _installed_version() -> str:
    """LangChain Experimental's version (its code decides the chunks), without importing it."""
    try:
        return importlib.metadata.version("langchain-experimental")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
