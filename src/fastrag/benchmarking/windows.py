"""Context windows: a chunk's source range widened by its neighbours to the model's limit.

Retrieval settings ``embed = "window" | "fuse"`` and ``bm25_over = "window"`` score a
chunk by more text than it returns: the chunk's source range (the hull of its spans)
widened equally on both sides, in the embedding model's own word pieces, to
``window_tokens`` pieces (the model's limit, 254 for all-MiniLM-L6-v2, by default). A
window is derived from the document alone (never from questions or references), and
the reader still gets only the chunk, so the character scores stay honest.

Ported from the issue 7 experiment (``bench/eval_context.py``) so that the texts, and
hence the cached vectors, are byte-identical to the ones it measured. The cutting itself
(``context_window``, ``token_offsets``) lives in ``fastrag.retrieval.windows``, shared
with the store's hybrid collections; this module windows an evaluation's chunks in
their source text.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from fastrag._optional import require
from fastrag.benchmarking.chunking import IndexedChunk
from fastrag.retrieval.windows import TokenOffsets, context_window, token_offsets

__all__ = ["TokenOffsets", "WindowMaker", "context_window", "token_offsets"]


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
