"""The Chunker family base.

Chunking is where chunk identity is decided, so this base owns it and no implementation
can get it wrong: every piece ``split()`` yields becomes a ``Document`` whose id is a
sha256 over a length-prefixed encoding of (parent id, chunk index, text), with
``parent_id`` and ``chunk_index`` in its metadata. Caching, retries and events are
``DocumentStep``'s job, applied around ``transform``; nothing here re-implements them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, ClassVar

from fastrag.exceptions import ChunkingError
from fastrag.ingestion.pages import DOCUMENT_LEVEL_KEYS
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import DocumentChunked, DocumentStep, ExecutionContext, ItemProduced
from fastrag.pipeline.hashing import sha256_parts

__all__ = ["Chunker", "Piece", "chunk_id"]

Piece = str | tuple[str, Mapping[str, Any]]
"""What ``split`` yields: a chunk's text, or its text with metadata of its own."""


def chunk_id(parent_id: str, index: int, text: str, *extra: str) -> str:
    """The deterministic id of chunk ``index`` with ``text`` of the document ``parent_id``.

    ``extra`` is further identity material a chunker declares through
    ``Chunker.identity_parts`` (lineage, configuration, embedding context).
    """
    return sha256_parts(parent_id, str(index), text, *extra)


class Chunker(DocumentStep, ABC):
    """Splits one parsed document into the units that get embedded.

    Subclasses implement ``config()`` and ``split()`` (or ``asplit()`` for model-backed
    splitting); binding (``chunker(documents)``) and evaluating never split eagerly — only
    consuming the resulting stream does.
    """

    event_name = "Chunking"
    produced_event: ClassVar[type[ItemProduced]] = DocumentChunked

    accepted_content_formats: frozenset[str] | None = None
    """None preserves permissive custom subclasses; sets may include custom strings."""

    content_format: ContentFormat | None = None
    """Overrides the parent's ``content_format`` in every chunk this chunker produces.

    None changes nothing: chunks inherit the parent's metadata, its format included. Set
    it on a chunker whose output format differs from its input's (e.g. one that flattens
    a DOCLING document into Markdown chunks) so its chunks describe themselves truthfully.
    """

    def validate_input(self, item: Document) -> None:
        """Reject incompatible representations before splitting or cache replay."""
        if not isinstance(item, Document):
            raise ChunkingError(
                f"{self.name} chunks fastrag.models.Document items (got "
                f"{type(item).__name__}: {item!r:.60}); parse raw input into Documents first"
            )
        accepted = self.accepted_content_formats
        if accepted is not None and item.content_format not in accepted:
            raise ChunkingError(
                f"{self.name} cannot chunk document {item.id!r}: its content_format is "
                f"{item.content_format!r}, but this chunker accepts "
                f"{sorted(str(f) for f in accepted)}; route it to another chunker "
                "(ChunkerRouter with ContentFormatFilter) or convert it first"
            )

    @abstractmethod
    def split(self, document: Document) -> Iterator[Piece]:
        """Yield the pieces of ``document``: text, or ``(text, metadata)``."""

    async def asplit(self, document: Document) -> AsyncIterator[Piece]:
        """Yield split pieces asynchronously; override for model-backed chunking.

        The default delegates to the synchronous ``split`` hook. Both hooks share chunk
        identity, metadata, caching and events through ``transform``.
        """
        for piece in self.split(document):
            yield piece

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        """Build every chunk of ``item``, numbering them as they are produced.

        The counter lives on this call's stack, so two documents chunked concurrently by
        one chunker never share it. Whitespace-only pieces are dropped before numbering,
        so indices are contiguous. Runs only on a cache miss; ``DocumentChunked`` is
        emitted by ``DocumentStep._on_produced`` for fresh and replayed chunks alike.
        """
        index = 0
        async for piece in self.asplit(item):
            text, metadata = self._unpack(piece, item)
            if not text.strip():
                continue
            yield self._build_chunk(item, text, metadata, index)
            index += 1

    def identity_parts(self, text: str, metadata: Mapping[str, Any]) -> tuple[str, ...]:
        """Identity material beyond (parent id, index, text) for one piece; none by default.

        A chunker whose output depends on more than the text — its configuration, the
        piece's lineage or the context prepended when embedding — returns it here so two
        chunks with equal text but different meaning never share an id.
        """
        return ()

    def _build_chunk(
        self, parent: Document, text: str, metadata: Mapping[str, Any], index: int
    ) -> Document:
        """One chunk: parent metadata, then the piece's, then lineage, then the format."""
        inherited = parent.metadata
        if not DOCUMENT_LEVEL_KEYS.isdisjoint(inherited):
            # A page map describes the whole document: copied into every chunk it would
            # multiply the cache and the output by the chunk count (records recompute
            # each chunk's pages from the parent).
            inherited = {k: v for k, v in inherited.items() if k not in DOCUMENT_LEVEL_KEYS}
        merged = {**inherited, **metadata, "parent_id": parent.id, "chunk_index": index}
        if self.content_format is not None:
            merged["content_format"] = self.content_format
        identity = chunk_id(parent.id, index, text, *self.identity_parts(text, metadata))
        return Document(identity, parent.source_id, text, merged)

    def _unpack(self, piece: object, parent: Document) -> tuple[str, Mapping[str, Any]]:
        if isinstance(piece, str):
            return piece, {}
        if (
            isinstance(piece, tuple)
            and len(piece) == 2
            and isinstance(piece[0], str)
            and isinstance(piece[1], Mapping)
        ):
            return piece[0], piece[1]
        raise ChunkingError(
            f"{self.name}.split() yielded a {type(piece).__name__} ({piece!r:.60}) for "
            f"document {parent.id!r}; yield a str or a (str, mapping) tuple"
        )
