"""Span arithmetic shared by the character splitters: split on a literal, merge with overlap.

Both ``CharacterTextSplitter`` and ``RecursiveCharacterTextSplitter`` work on *spans* —
half-open ``(start, end)`` code-point ranges into the one source string — instead of on
substrings. A chunk is always one contiguous source range, so

* its text is ``source[start:end]`` exactly, which makes a recorded ``start_index`` true by
  construction (even when the same text occurs many times), and the separators between the
  pieces a chunk merges are the source's own characters, never re-inserted ones;
* a candidate's length is ``end - start``: merging keeps two indices into the piece list and
  never joins or re-measures a growing string, so merging ``n`` pieces costs ``O(n)``.

A piece is the *core* of one split: the split with leading and trailing whitespace removed,
so a chunk never starts or ends with whitespace (as LangChain's splitters strip theirs) and
a whitespace-only split disappears (it holds nothing to embed; its characters still appear
inside any chunk that spans it). A separator stays attached to the end of the split before
it, so a chunk ends with a separator (when that separator is not whitespace) rather than
starting with one: ``"One. Two."`` split on ``". "`` gives ``"One."`` and ``"Two."``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from fastrag.exceptions import ConfigurationError

__all__ = ["Span", "check_sizes", "core_spans", "merge_spans"]

Span = tuple[int, int]
"""A half-open ``(start, end)`` range of code points in the source string."""


def check_sizes(chunk_size: object, chunk_overlap: object) -> tuple[int, int]:
    """Validate a splitter's size arguments before any work, naming the offending value.

    ``bool`` is rejected even though it is an ``int`` subclass: ``chunk_size=True`` is
    always a mistake, and silently reading it as 1 would produce one chunk per character.
    """
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size <= 0:
        raise ConfigurationError(
            f"'chunk_size' must be a positive int, the maximum chunk length in characters "
            f"(got {chunk_size!r}); pass e.g. chunk_size=1000"
        )
    if isinstance(chunk_overlap, bool) or not isinstance(chunk_overlap, int):
        raise ConfigurationError(
            f"'chunk_overlap' must be an int number of characters (got {chunk_overlap!r}); "
            f"pass e.g. chunk_overlap=200, or 0 for no overlap"
        )
    if chunk_overlap < 0:
        raise ConfigurationError(
            f"'chunk_overlap' must be >= 0 (got {chunk_overlap}); pass 0 for no overlap"
        )
    if chunk_overlap >= chunk_size:
        raise ConfigurationError(
            f"'chunk_overlap' ({chunk_overlap}) must be smaller than 'chunk_size' "
            f"({chunk_size}); lower chunk_overlap or raise chunk_size"
        )
    return chunk_size, chunk_overlap


def core_spans(text: str, start: int, end: int, separator: str) -> list[Span]:
    """The non-whitespace cores of ``text[start:end]`` split on the literal ``separator``.

    Each split keeps the separator that ends it, so consecutive splits tile the range with
    no gap; the cores are then those splits minus surrounding whitespace, in source order,
    and every non-whitespace character of the range lies in exactly one core. The empty
    separator splits into single characters (whitespace characters drop out). Each split
    is sliced once, so the cost is linear in the range.
    """
    if separator == "":
        return [(index, index + 1) for index in range(start, end) if not text[index].isspace()]
    cores: list[Span] = []
    width = len(separator)
    split_start = start
    while split_start < end:
        found = text.find(separator, split_start, end)
        split_end = end if found == -1 else found + width
        piece = text[split_start:split_end]
        left = piece.lstrip()
        if left:
            core_start = split_start + len(piece) - len(left)
            cores.append((core_start, split_start + len(piece.rstrip())))
        split_start = split_end
    return cores


def merge_spans(pieces: Sequence[Span], chunk_size: int, chunk_overlap: int) -> Iterator[Span]:
    """Merge adjacent ``pieces`` into chunks of at most ``chunk_size`` characters.

    A chunk grows while the next piece still fits; when it does not, the chunk is emitted
    and the next one starts from the longest tail of whole pieces that spans at most
    ``chunk_overlap`` characters *and* leaves room for that next piece — the overlap never
    pushes a chunk over budget. A single piece longer than ``chunk_size`` becomes a chunk
    on its own, as is: only the caller knows whether it could have been split further.

    ``first`` only moves forward, so every piece is added and dropped once: ``O(n)``.
    Chunk starts strictly increase (an emitted chunk always drops at least its first piece,
    because the next piece did not fit alongside it), so no chunk repeats another.
    """
    if not pieces:
        return
    first = 0
    for following in range(1, len(pieces)):
        window_start = pieces[first][0]
        following_end = pieces[following][1]
        if following_end - window_start <= chunk_size:
            continue
        window_end = pieces[following - 1][1]
        yield window_start, window_end
        while first < following and (
            window_end - pieces[first][0] > chunk_overlap
            or following_end - pieces[first][0] > chunk_size
        ):
            first += 1
    yield pieces[first][0], pieces[-1][1]
