"""LangChain's recursive splitter with a token length function, for reproduction only.

Chroma's report measured LangChain's ``RecursiveCharacterTextSplitter`` with sizes in
cl100k tokens (its harness uses a copy of that splitter with a tiktoken length
function). fastrag's own ``RecursiveCharacterTextSplitter`` measures characters and cuts
differently (separators close a chunk; overlap is whole pieces within a character budget),
so reproducing the published rows needs LangChain's exact semantics, written here without
a langchain dependency:

1. take the first separator that occurs in the text (``""`` always does: characters);
2. split *keeping* the separator at the start of the piece that follows it;
3. a piece whose count is ``< chunk_size`` is kept for merging; a larger one is split
   again with the separators after the chosen one (or emitted as is when none is left);
4. merging walks the kept pieces, summing each piece's own count (never re-counting the
   joined text, so a chunk's true count can differ slightly from the sum); when the next
   piece would pass ``chunk_size`` it emits the current chunk, then drops pieces from the
   front until the running total is ``<= chunk_overlap`` and the next piece fits;
5. each chunk is stripped of surrounding whitespace; empty chunks are dropped.

Pieces partition the text exactly (separators are kept), so every chunk is a contiguous
range of the source: we track offsets instead of searching for the chunk text afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Final

__all__ = ["CHROMA_SEPARATORS", "LANGCHAIN_SEPARATORS", "recursive_token_spans"]

LANGCHAIN_SEPARATORS: Final = ("\n\n", "\n", " ", "")
"""LangChain's default hierarchy."""
CHROMA_SEPARATORS: Final = ("\n\n", "\n", ".", "?", "!", " ", "")
"""The default of the Chroma harness's copy (``RecursiveTokenChunker``), behind its rows."""

Span = tuple[int, int]


def recursive_token_spans(
    text: str,
    *,
    chunk_size: int,
    chunk_overlap: int,
    count: Callable[[str], int],
    separators: Sequence[str] = CHROMA_SEPARATORS,
) -> list[Span]:
    """Chunk ``(start, end)`` offsets of ``text``, in source order, stripped of whitespace."""
    if chunk_overlap > chunk_size:
        raise ValueError(f"chunk_overlap {chunk_overlap} is larger than chunk_size {chunk_size}")
    return list(_split(text, 0, len(text), tuple(separators), chunk_size, chunk_overlap, count))


def _pieces(text: str, start: int, end: int, separator: str) -> Iterator[Span]:
    """Non-empty pieces of ``text[start:end]``, each separator opening the next piece."""
    if separator == "":
        yield from ((offset, offset + 1) for offset in range(start, end))
        return
    cursor = start
    for match in re.finditer(re.escape(separator), text[start:end]):
        cut = start + match.start()
        if cut > cursor:
            yield cursor, cut
        cursor = cut
    if end > cursor:
        yield cursor, end


def _split(
    text: str,
    start: int,
    end: int,
    separators: tuple[str, ...],
    chunk_size: int,
    chunk_overlap: int,
    count: Callable[[str], int],
) -> Iterator[Span]:
    chosen: str = separators[-1]
    finer: tuple[str, ...] = ()
    for index, separator in enumerate(separators):
        if separator == "":
            chosen, finer = separator, ()
            break
        if text.find(separator, start, end) != -1:
            chosen, finer = separator, separators[index + 1 :]
            break
    good: list[tuple[Span, int]] = []
    for piece in _pieces(text, start, end, chosen):
        size = count(text[piece[0] : piece[1]])
        if size < chunk_size:
            good.append((piece, size))
            continue
        if good:
            yield from _merge(text, good, chunk_size, chunk_overlap)
            good = []
        if finer:
            yield from _split(text, piece[0], piece[1], finer, chunk_size, chunk_overlap, count)
        else:
            yield from _strip(text, piece)
    if good:
        yield from _merge(text, good, chunk_size, chunk_overlap)


def _merge(
    text: str, pieces: list[tuple[Span, int]], chunk_size: int, chunk_overlap: int
) -> Iterator[Span]:
    """Merge adjacent pieces by their summed counts (separator count is 0: kept inside)."""
    current: list[tuple[Span, int]] = []
    total = 0
    for piece, size in pieces:
        if total + size > chunk_size and current:
            yield from _strip(text, (current[0][0][0], current[-1][0][1]))
            while total > chunk_overlap or (total + size > chunk_size and total > 0):
                total -= current[0][1]
                current = current[1:]
        current.append((piece, size))
        total += size
    if current:
        yield from _strip(text, (current[0][0][0], current[-1][0][1]))


def _strip(text: str, span: Span) -> Iterator[Span]:
    """The span without surrounding whitespace (``str.strip``'s set), if anything is left."""
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end
