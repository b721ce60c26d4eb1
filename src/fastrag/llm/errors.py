"""Errors of the model layer: what failed, at which endpoint, and what to do about it.

Messages name the model or endpoint and the numbers involved, never an API key and never
the text that was being embedded (documents are hostile and may be confidential).
"""

from __future__ import annotations

import re

from fastrag.exceptions import FastragError

__all__ = ["EmbeddingError", "EmbeddingTimeoutError", "InputTooLongError"]


class EmbeddingError(FastragError):
    """A model or an endpoint could not embed a batch of texts."""


class EmbeddingTimeoutError(EmbeddingError):
    """An endpoint did not answer within the configured timeout."""


class InputTooLongError(EmbeddingError):
    """A text is longer than the model reads; refused rather than silently truncated.

    An embedding model cuts everything past its input limit without a word, so the
    vector would describe only the start of the chunk. ``label`` names the chunk (its id)
    or the position of the text in a batch; ``tokens`` and ``limit`` are both counted in
    the model's own tokens, special tokens included when the model adds them.
    """

    def __init__(self, label: str, tokens: int, limit: int, model: str, tokenizer: str) -> None:
        self.label = label
        self.tokens = tokens
        self.limit = limit
        super().__init__(
            f"{label} is {tokens} tokens under the model's tokenizer ({_brief(tokenizer)}), "
            f"over the {limit}-token input limit of {_brief(model)}; the model would silently "
            f"drop the rest. "
            f"Re-chunk with that tokenizer and max_tokens={limit} (e.g. "
            f"StructureAwareChunker(tokenizer=embedder.tokenizer, "
            f"max_tokens=embedder.max_input_tokens))"
        )


_DIGEST = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{52}\b")


def _brief(identity: str) -> str:
    """An identity for a message: each sha256 cut to 12 hex digits (the full one is noise)."""
    return _DIGEST.sub(r"\1…", identity)
