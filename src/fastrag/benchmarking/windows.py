"""Context windows: a chunk's source range widened by its neighbours to the model's limit.

Retrieval settings ``embed = "window" | "fuse"`` and ``bm25_over = "window"`` score a
chunk by more text than it returns: the chunk's source range (the hull of its spans)
widened equally on both sides, in the embedding model's own word pieces, to
``window_tokens`` pieces (the model's limit, 254 for all-MiniLM-L6-v2, by default). A
window is derived from the document alone (never from questions or references), and
the reader still gets only the chunk, so the character scores stay honest.

Ported from the issue 7 experiment (``bench/eval_context.py``) so that the texts, and
hence the cached vectors, are byte-identical to the ones it measured.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastrag._optional import require
from fastrag.benchmarking.chunking import IndexedChunk

__all__ = ["TokenOffsets", "WindowMaker", "context_window", "token_offsets"]


@dataclass(frozen=True, slots=True)
class TokenOffsets:
    """Character offsets of a document's word pieces (sorted, as the tokenizer gives them)."""

    starts: list[int]
    ends: list[int]


def token_offsets(tokenizer: Any, text: str) -> TokenOffsets:
    """The model tokenizer's own piece offsets: windows are measured in the pieces it reads.

    ``tokenizer`` is a ``tokenizers.Tokenizer`` without truncation or padding.
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


class WindowMaker:
    """Windows of chunks of a corpus, with each document tokenized once.

    ``tokenizer_file`` is the embedding model's ``tokenizer.json`` (for piece offsets);
    ``count`` must count in the same tokenizer without special tokens (the budget is
    the model's limit minus [CLS] and [SEP]).
    """

    def __init__(
        self,
        documents: Mapping[str, str],
        tokenizer_file: str | os.PathLike[str],
        count: Callable[[str], int],
        budget: int,
    ) -> None:
        tokenizers = require("tokenizers", extra="eval", feature="context windows")
        self._tokenizer = tokenizers.Tokenizer.from_file(os.fspath(Path(tokenizer_file)))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._documents = documents
        self._count = count
        self.budget = budget
        self._offsets: dict[str, TokenOffsets] = {}

    def offsets(self, document: str) -> TokenOffsets:
        """Piece offsets of one document (computed on first use)."""
        if document not in self._offsets:
            self._offsets[document] = token_offsets(self._tokenizer, self._documents[document])
        return self._offsets[document]

    def window(self, chunk: IndexedChunk) -> str:
        """The window around ``chunk``'s source hull (its exact, not first-occurrence, spans)."""
        hull = (chunk.spans[0][0], chunk.spans[-1][1])
        return context_window(
            self._documents[chunk.document],
            self.offsets(chunk.document),
            hull,
            self.budget,
            self._count,
        )
