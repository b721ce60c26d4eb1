"""``ModelWindows``: the context windows of a document's chunks, in a local model's pieces.

What a hybrid store indexes beside each chunk (``fastrag ingest --store ... --retrieval
hybrid``): the chunk widened by its neighbouring chunks' text to the embedding model's
input limit (``fastrag.retrieval.windows.chunk_windows``). The model's
``tokenizer.json`` gives both the piece offsets the window is cut at and the count it
is checked with, so a window never exceeds what the model reads: ``budget`` is the
model's limit minus its special tokens (254 for all-MiniLM-L6-v2).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError
from fastrag.retrieval.windows import TokenOffsets, chunk_windows, token_offsets
from fastrag.tokenization import HuggingFaceTokenizer
from fastrag.tokenization._text import scrub_surrogates

__all__ = ["ModelWindows"]


class ModelWindows:
    """Cuts windows of ``max_input_tokens`` pieces (special tokens included) with the
    model's ``tokenizer_file``; ``budget`` is what is left for text."""

    def __init__(self, tokenizer_file: str | os.PathLike[str], max_input_tokens: int) -> None:
        path = Path(tokenizer_file)
        self._counter = HuggingFaceTokenizer(path)
        specials = HuggingFaceTokenizer(path, add_special_tokens=True).count("")
        if type(max_input_tokens) is not int or max_input_tokens - specials < 1:
            raise ConfigurationError(
                f"context windows need a model input limit above its {specials} special "
                f"tokens (got max_input_tokens={max_input_tokens!r})"
            )
        tokenizers = require("tokenizers", extra="hf", feature="context windows")
        pieces: Any = tokenizers.Tokenizer.from_file(os.fspath(path))
        pieces.no_truncation()
        pieces.no_padding()
        self._pieces = pieces
        self.budget = max_input_tokens - specials

    def offsets(self, text: str) -> TokenOffsets:
        """Piece offsets of ``text`` (already scrubbed of lone surrogates)."""
        return token_offsets(self._pieces, text)

    def windows(self, texts: Sequence[str]) -> list[str]:
        """The window of each of one document's chunk texts (in document order).

        Lone surrogates (which no store or tokenizer accepts) become U+FFFD first, as
        the model's own encode does.
        """
        clean = [scrub_surrogates(text) for text in texts]
        return chunk_windows(clean, self.offsets, self.budget, self._counter.count)
