"""``EmbeddingSemanticChunker``: cut between sentences where embeddings change the most.

The algorithm is LangChain Experimental's ``SemanticChunker`` (Greg Kamradt's "semantic
chunking"), reimplemented so that chunks are exact source slices: sentences are found
with ``sentence_split_regex``; each is embedded together with ``buffer_size`` neighbours
per side (the same joined strings LangChain embeds); the cosine distance between
consecutive windows marks a cut where it exceeds a threshold — a ``percentile`` of the
distances, ``mean + amount * std`` (``standard_deviation``), ``mean + amount * IQR``
(``interquartile``) or a percentile of their ``gradient`` — with LangChain's defaults
(95, 3, 1.5, 95) and numpy's arithmetic (``_semantic_stats``).

Where this differs from LangChain, by design:

* chunks keep every source character: the separator after a sentence stays at the end of
  its chunk, so the chunks concatenate back to the document and ``start_index`` is the
  true source offset (LangChain's is a running sum of its rejoined chunk lengths);
* ``number_of_chunks=n`` takes exactly the ``n - 1`` largest distances (earlier offsets
  win ties) instead of LangChain's interpolated percentile, which rarely yields ``n``;
* blank "sentences" (a separator at the end of the text, adjacent matches) join their
  neighbour instead of being embedded (``_semantic_sentences``), and a two-sentence text
  in ``gradient`` mode still obeys ``min_chunk_size``.

With the same sentences and ``number_of_chunks=None``, the cuts are LangChain's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import ChunkingError
from fastrag.ingestion.steps.chunking._semantic_base import SentenceEmbeddingChunker
from fastrag.ingestion.steps.chunking._semantic_fit import FitReport, FittedSentences, fit_windows
from fastrag.ingestion.steps.chunking._semantic_sentences import (
    Sentence,
    assemble,
    sentences,
    windows,
)
from fastrag.ingestion.steps.chunking._semantic_settings import (
    embedder_identity,
)
from fastrag.ingestion.steps.chunking._semantic_stats import (
    breakpoints,
    cosine_distances,
    strongest,
)
from fastrag.ingestion.steps.chunking.base import Piece
from fastrag.llm.errors import InputTooLongError
from fastrag.tokenization import count_many

if TYPE_CHECKING:
    from fastrag.llm import Vector
    from fastrag.models import Document
    from fastrag.pipeline import ExecutionContext

__all__ = ["EmbeddingSemanticChunker", "SemanticPlan"]

_VERSION: Final = 1
"""Unchanged by window fitting: it only affects documents that used to be refused."""


@dataclass(frozen=True, slots=True)
class SemanticPlan:
    """One document's chunk ranges (covering it exactly) and the fitting it needed."""

    ranges: tuple[tuple[int, int], ...]
    fit: FitReport


class EmbeddingSemanticChunker(SentenceEmbeddingChunker):
    """Select sentence cuts with an existing asynchronous SDK Embedder.

    Threshold modes mirror LangChain Experimental statistics. Requested counts instead
    select the strongest cuts exactly, with earlier offsets winning ties. Minimum size is
    in source characters and may reduce that count. This is a sentence splitter, with no
    syntax awareness or hard token budget. Both direct and pipeline outputs preserve all
    original whitespace and source order: the chunks of a document concatenate back to
    it. With ``add_start_index`` every piece carries ``{"start_index": offset}`` and
    ``content[offset:offset + len(text)] == text``. Windows are embedded ``batch_size``
    per ``aembed_texts`` call. A window is never truncated: when the embedder reports
    its ``tokenizer`` and ``max_input_tokens`` (fastrag's embedders do), windows over the
    limit are fitted instead (long sentences re-split at sentence-like ends or words,
    fewer neighbours; ``_semantic_fit``) and ``plan()`` reports what was changed. An
    embedder reporting no limit gets the windows as they are; if it then refuses one
    (``InputTooLongError``), the document fails with ``ChunkingError``.
    """

    def config(self) -> Mapping[str, Any]:
        """Return strategy settings and opaque nonsecret provider identity."""
        return {
            "version": _VERSION,
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
        """Embed neighboring source sentences, then slice at validated offsets."""
        content = document.content
        for start, end in await self.ranges(document):
            text = content[start:end]
            yield (text, {"start_index": start}) if self.settings.add_start_index else text

    async def ranges(self, document: Document) -> list[tuple[int, int]]:
        """The ``(start, end)`` source range of every chunk, covering the text exactly."""
        return list((await self.plan(document)).ranges)

    async def plan(self, document: Document) -> SemanticPlan:
        """The chunk ranges, and what fitting windows to the model's limit changed."""
        content = document.content
        spans = sentences(content, self.settings.pattern)
        if not spans:
            return SemanticPlan((), FitReport())
        fitted = self._fit(content, spans)
        cuts = await self._cuts(document, fitted.windows)
        ranges = assemble(content, fitted.spans, cuts, self.settings.min_chunk_size)
        _check_cover(self.name, document, ranges)
        return SemanticPlan(tuple(ranges), fitted.report)

    def _fit(self, content: str, spans: Sequence[Sentence]) -> FittedSentences:
        """Windows within the embedder's input limit, when it reports one (else as is)."""
        tokenizer = getattr(self.embeddings, "tokenizer", None)
        limit = getattr(self.embeddings, "max_input_tokens", None)
        buffer_size = self.settings.buffer_size
        if tokenizer is None or not isinstance(limit, int) or len(spans) == 1:
            texts = [content[s.start : s.core_end] for s in spans]
            return FittedSentences(tuple(spans), tuple(windows(texts, buffer_size)), FitReport())

        def count(texts: Sequence[str]) -> list[int]:
            return count_many(tokenizer, texts)

        return fit_windows(content, spans, buffer_size, count, limit)

    async def _cuts(self, document: Document, windowed: Sequence[str]) -> list[int]:
        """Indices ``i`` of the sentences after which a chunk ends (LangChain's rules)."""
        settings = self.settings
        count = len(windowed)
        if count == 1:
            return []
        gradient = settings.number_of_chunks is None and settings.threshold_type == "gradient"
        if gradient and count == 2:
            return [0]  # LangChain returns both sentences: np.gradient needs two points
        vectors = await self._embed(document, windowed)
        distances = cosine_distances(vectors)
        if settings.number_of_chunks is not None:
            return strongest(distances, settings.number_of_chunks - 1)
        threshold, compared = breakpoints(distances, settings.threshold_type, settings.amount)
        return [index for index, value in enumerate(compared) if value > threshold]

    async def _embed(self, document: Document, texts: Sequence[str]) -> list[Vector]:
        size = self.settings.batch_size
        vectors: list[Vector] = []
        for first in range(0, len(texts), size):
            try:
                vectors.extend(await self.embeddings.aembed_texts(texts[first : first + size]))
            except InputTooLongError as error:
                raise ChunkingError(
                    f"{self.name}: a window of {2 * self.settings.buffer_size + 1} sentences "
                    f"of document {document.id!r} is {error.tokens} tokens, over the "
                    f"embedding model's {error.limit}-token limit, and the embedder reports "
                    f"no tokenizer and input limit to fit windows with; lower buffer_size or "
                    f"use a sentence_split_regex that cuts long sentences"
                ) from error
        if len(vectors) != len(texts):
            raise ChunkingError(
                f"{self.name}: the embedder returned {len(vectors)} vectors for "
                f"{len(texts)} sentence windows of document {document.id!r}; fix the "
                f"Embedder so it returns one vector per text"
            )
        return vectors

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        """Use base-owned metadata/identity while retaining exact source whitespace.

        Unlike the base, no piece is stripped or dropped: the separators a chunk ends
        with are part of its text, so the chunks concatenate back to the document.
        """
        index = 0
        async for piece in self.asplit(item):
            text, metadata = self._unpack(piece, item)
            yield self._build_chunk(item, text, metadata, index)
            index += 1

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        """Check fresh or replayed chunks are the document's exact slices, in source order.

        A ``CacheStore`` keeps each entry's order, so a replay in any other order (or
        with other text) means a corrupt entry: it fails the item rather than reach the
        index reordered. Chunk indices must run 0, 1, 2, ... and the texts, in that order,
        concatenate to the document (to nothing for a blank one).
        """
        offset = 0
        for position, chunk in enumerate(produced):
            metadata = chunk.metadata
            in_order = (
                metadata.get("chunk_index") == position and metadata.get("parent_id") == item.id
            )
            exact = item.content.startswith(chunk.content, offset) and bool(chunk.content)
            placed = not self.settings.add_start_index or metadata.get("start_index") == offset
            if not (in_order and exact and placed):
                raise ChunkingError(
                    f"{self.name}: chunk #{position} ({chunk.id!r}) of document {item.id!r} "
                    f"is not the next source slice in order (chunk_index "
                    f"{metadata.get('chunk_index')!r}); clear this step's cache entry"
                )
            offset += len(chunk.content)
        if offset != len(item.content) and item.content.strip():
            raise ChunkingError(
                f"{self.name}: the chunks of document {item.id!r} cover {offset} of its "
                f"{len(item.content)} characters; clear this step's cache entry"
            )


def _check_cover(name: str, document: Document, ranges: Sequence[tuple[int, int]]) -> None:
    """Every range starts where the previous ended, from 0 to the end of the text."""
    position = 0
    for start, end in ranges:
        if start != position or end <= start:
            raise ChunkingError(
                f"{name}: internal error, chunk range ({start}, {end}) of document "
                f"{document.id!r} does not continue at offset {position}; please report it"
            )
        position = end
    if position != len(document.content):
        raise ChunkingError(
            f"{name}: internal error, chunks of document {document.id!r} end at {position} "
            f"of {len(document.content)} characters; please report it"
        )
