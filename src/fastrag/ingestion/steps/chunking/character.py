"""CharacterTextSplitter: split on one separator only, no fallback hierarchy."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking._merge import check_sizes, core_spans, merge_spans
from fastrag.ingestion.steps.chunking.base import Chunker, Piece

if TYPE_CHECKING:
    from fastrag.models import Document
    from fastrag.pipeline import CacheSetting, Policy

__all__ = ["CharacterTextSplitter"]


class CharacterTextSplitter(Chunker):
    """Split on a single literal separator, with no separator hierarchy.

    Unlike ``RecursiveCharacterTextSplitter``, this never descends to a smaller separator
    when a piece is still too large after splitting on ``separator`` — the right choice
    when a source's structure already guarantees short-enough pieces at one boundary (e.g.
    a page's own section breaks), and the wrong one for prose of unpredictable length.

    Sizes are in characters. Adjacent splits are merged while the chunk stays within
    ``chunk_size``; consecutive chunks share a tail of whole splits of at most
    ``chunk_overlap`` characters. A single split longer than ``chunk_size`` is emitted as
    is, on its own: this splitter never cuts inside a split. Each chunk is one contiguous
    range of the source with surrounding whitespace removed; a separator stays at the end
    of the chunk it closes. Every piece carries ``{"start_index": offset}``, the offset of
    its text in ``document.content``.

    ``separator=""`` splits into single characters.
    """

    accepted_content_formats = frozenset({"html", "markdown", "rst", "text"})

    def __init__(
        self,
        *,
        chunk_size: int = 1000,
        chunk_overlap: int = 200,
        separator: str = "\n\n",
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        self.chunk_size, self.chunk_overlap = check_sizes(chunk_size, chunk_overlap)
        if not isinstance(separator, str):
            raise ConfigurationError(
                f"'separator' must be a str (got {type(separator).__name__}: {separator!r}); "
                f"pass e.g. separator='\\n\\n'"
            )
        self.separator = separator
        super().__init__(cache=cache, policy=policy)

    def config(self) -> Mapping[str, Any]:
        """This splitter's configuration, for cache-identity hashing."""
        return {
            "version": 1,
            "chunk_size": self.chunk_size,
            "chunk_overlap": self.chunk_overlap,
            "separator": self.separator,
        }

    def split(self, document: Document) -> Iterator[Piece]:
        """Split ``document.content`` on ``self.separator`` only."""
        content = document.content
        pieces = core_spans(content, 0, len(content), self.separator)
        for start, end in merge_spans(pieces, self.chunk_size, self.chunk_overlap):
            yield content[start:end], {"start_index": start}
