"""Context windows: a chunk widened by its neighbours to the embedding model's limit.

A small sentence model embeds a ~100-piece chunk with little context, and BM25 over the
chunk alone misses words its section uses just before or after it. A *context window*
is the chunk's range widened equally on both sides, in the embedding model's own word
pieces, to ``budget`` pieces (the model's limit, 254 for all-MiniLM-L6-v2). The reader
still gets only the chunk; the window only scores it.

One definition for both users: ``fastrag eval`` windows a chunk's source range in the
source text (``fastrag.benchmarking.windows.WindowMaker``); ``fastrag ingest --store
... --retrieval hybrid`` windows a chunk inside its document's own chunks
(``chunk_windows``), because the store sees chunks, not the file they came from, and a
window must be readable text in any format (never raw PDF or DOCX markup). Both cut
with ``context_window``. Pure functions: the caller brings the tokenizer.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CHUNK_SEPARATOR",
    "TokenOffsets",
    "chunk_windows",
    "context_window",
    "token_offsets",
]

CHUNK_SEPARATOR: Final = "\n\n"
"""What joins a document's chunks before windows are cut from them (a paragraph break:
chunks end at block boundaries, and the tokenizer sees no word spanning two chunks)."""


@dataclass(frozen=True, slots=True)
class TokenOffsets:
    """Character offsets of a document's word pieces (sorted, as the tokenizer gives them)."""

    starts: list[int]
    ends: list[int]


def token_offsets(tokenizer: Any, text: str) -> TokenOffsets:
    """The model tokenizer's own piece offsets: windows are measured in the pieces it reads.

    ``tokenizer`` is a ``tokenizers.Tokenizer`` without truncation or padding (anything
    whose ``encode(text, add_special_tokens=False).offsets`` gives ``(start, end)`` pairs).
    """
    encoding = tokenizer.encode(text, add_special_tokens=False)
    return TokenOffsets([s for s, _ in encoding.offsets], [e for _, e in encoding.offsets])


def context_window(
    text: str,
    offsets: TokenOffsets,
    span: tuple[int, int],
    budget: int,
    count: Callable[[str], int],
) -> str:
    """``text[span]`` widened by neighbouring text to about ``budget`` pieces.

    Half the spare pieces go before the range and half after; at a document edge the
    rest moves to the other side. Hand-written because no library cuts "N word pieces
    either side of a range": the pieces come from the model's tokenizer, the arithmetic
    is ours. Edges are moved inward to a word start (a window must not begin inside a
    word), and the result is re-counted and trimmed one piece at a time, since a word
    cut at its edge may tokenize differently. A range already over budget is returned
    as is (the model truncates it, as it does the chunk).
    """
    low, high = span
    starts, ends = offsets.starts, offsets.ends
    first = bisect.bisect_right(ends, low)  # first piece ending after the range starts
    stop = bisect.bisect_left(starts, high)  # first piece starting at/after its end
    spare = budget - (stop - first)
    if spare <= 0:
        return text[low:high]
    before, after = spare // 2, spare - spare // 2
    if before > first:
        after, before = after + before - first, first
    if after > len(starts) - stop:
        before = min(first, before + after - (len(starts) - stop))
        after = len(starts) - stop
    begin, end = first - before, stop + after
    for _ in range(budget):
        while begin < first and begin > 0 and ends[begin - 1] == starts[begin]:
            begin += 1  # inside a word: start at the next word instead
        while end > stop and end < len(starts) and starts[end] == ends[end - 1]:
            end -= 1
        left = min(low, starts[begin]) if begin < len(starts) else low
        right = max(high, ends[end - 1]) if end > 0 else high
        window = text[left:right]
        if count(window) <= budget or (begin >= first and end <= stop):
            return window
        # Re-tokenized edges cost more pieces: drop one piece from the longer side.
        if first - begin >= end - stop:
            begin += 1
        else:
            end -= 1
    return text[low:high]


def chunk_windows(
    texts: Sequence[str],
    offsets_of: Callable[[str], TokenOffsets],
    budget: int,
    count: Callable[[str], int],
) -> list[str]:
    """The window of each of one document's chunks, cut from the chunks themselves.

    ``texts`` are the document's chunk texts in document order; they are joined with
    ``CHUNK_SEPARATOR`` and each chunk's window is ``context_window`` of its own range
    in that joined text. ``offsets_of`` gives piece offsets of a text (e.g.
    ``lambda t: token_offsets(tokenizer, t)``) and ``count`` counts pieces without
    special tokens, both in the embedding model's tokenizer. Chunks made with overlap
    repeat their shared text in a neighbour's window; the window stays readable.
    """
    if not texts:
        return []
    joined = CHUNK_SEPARATOR.join(texts)
    spans: list[tuple[int, int]] = []
    cursor = 0
    for text in texts:
        spans.append((cursor, cursor + len(text)))
        cursor += len(text) + len(CHUNK_SEPARATOR)
    offsets = offsets_of(joined)
    return [context_window(joined, offsets, span, budget, count) for span in spans]
