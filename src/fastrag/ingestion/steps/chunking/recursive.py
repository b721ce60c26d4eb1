"""RecursiveCharacterTextSplitter: split on a separator hierarchy, largest first."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking._merge import Span, check_sizes, core_spans, merge_spans
from fastrag.ingestion.steps.chunking.base import Chunker, Piece

if TYPE_CHECKING:
    from fastrag.models import Document
    from fastrag.pipeline import CacheSetting, Policy

__all__ = ["DEFAULT_SEPARATORS", "RecursiveCharacterTextSplitter"]

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", " ", "")
"""Paragraphs, then lines, then words, then characters."""


class RecursiveCharacterTextSplitter(Chunker):
    """Split on paragraphs, then lines, then words, then characters.

    The default chunker: it descends the separator hierarchy only when a piece is still
    too large, so a chunk breaks at a blank line whenever it can and mid-word only when it
    must. That makes it the right choice for prose regardless of source format.

    Sizes are in characters (``len``), as in LangChain's splitter of the same name. The
    first separator that occurs in a range splits it; pieces that fit are merged with
    their neighbours up to ``chunk_size``, with consecutive chunks sharing a tail of whole
    pieces of at most ``chunk_overlap`` characters; a piece that does not fit is split
    again with the separators after the one used. With ``""`` last (as in the default
    hierarchy) every chunk fits; without it, a piece no remaining separator splits is
    emitted as is. Chunks are merged only among siblings of one split, so a chunk never
    straddles a boundary of a larger separator that had to be descended below.

    Each chunk is one contiguous range of the source with surrounding whitespace removed:
    separators inside it are the source's own, and a separator stays at the *end* of the
    chunk it closes (``". "`` as a separator yields chunks ending in ``"."``). Every piece
    carries ``{"start_index": offset}``, the exact offset of its text in
    ``document.content`` — ``content[start:start + len(text)] == text`` always holds, also
    when the same text occurs several times.
    """

    accepted_content_formats = frozenset({"html", "markdown", "rst", "text"})

    def __init__(
        self,
        *,
        chunk_size: int = 1000,
        chunk_overlap: int = 200,
        separators: Sequence[str] | None = None,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        self.chunk_size, self.chunk_overlap = check_sizes(chunk_size, chunk_overlap)
        self.separators = DEFAULT_SEPARATORS if separators is None else _check(separators)
        super().__init__(cache=cache, policy=policy)

    def config(self) -> Mapping[str, Any]:
        """This splitter's configuration, for cache-identity hashing."""
        return {
            "version": 1,
            "chunk_size": self.chunk_size,
            "chunk_overlap": self.chunk_overlap,
            "separators": list(self.separators),
        }

    def split(self, document: Document) -> Iterator[Piece]:
        """Split ``document.content`` on the paragraph/line/word/character hierarchy."""
        content = document.content
        spans = _descend(
            content, 0, len(content), self.separators, self.chunk_size, self.chunk_overlap
        )
        for start, end in spans:
            yield content[start:end], {"start_index": start}


def _check(separators: object) -> tuple[str, ...]:
    if isinstance(separators, str) or not isinstance(separators, Sequence):
        raise ConfigurationError(
            f"'separators' must be a list of str, largest boundary first "
            f"(got {type(separators).__name__}: {separators!r}); "
            f"pass e.g. separators=['\\n\\n', '\\n', ' ', '']"
        )
    if not separators:
        raise ConfigurationError(
            "'separators' must not be empty (got []); pass None for the default "
            "['\\n\\n', '\\n', ' ', ''] or list at least one separator"
        )
    for index, separator in enumerate(separators):
        if not isinstance(separator, str):
            raise ConfigurationError(
                f"'separators[{index}]' must be a str "
                f"(got {type(separator).__name__}: {separator!r}); every separator is a "
                f"literal string"
            )
    return tuple(separators)


def _descend(
    text: str,
    start: int,
    end: int,
    separators: tuple[str, ...],
    chunk_size: int,
    chunk_overlap: int,
) -> Iterator[Span]:
    """Chunk spans of ``text[start:end]``, splitting only what does not fit.

    Runs of fitting pieces are merged as they end, so output stays in source order and
    memory holds one level's pieces at a time. Each level scans its range once (one
    ``find`` per separator tried, one pass to split), so the total cost is linear in the
    text times the depth of the hierarchy.
    """
    for index, separator in enumerate(separators):
        if separator == "" or text.find(separator, start, end) != -1:
            finer = separators[index + 1 :]
            break
    else:  # no separator occurs: the range is one piece, and nothing can split it
        separator, finer = separators[-1], ()
    fitting: list[Span] = []
    for piece in core_spans(text, start, end, separator):
        if piece[1] - piece[0] <= chunk_size:
            fitting.append(piece)
            continue
        if fitting:
            yield from merge_spans(fitting, chunk_size, chunk_overlap)
            fitting = []
        if finer:
            yield from _descend(text, piece[0], piece[1], finer, chunk_size, chunk_overlap)
        else:
            yield piece
    if fitting:
        yield from merge_spans(fitting, chunk_size, chunk_overlap)
