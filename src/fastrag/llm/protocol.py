"""``EmbeddingModel``: what an embedding step needs from a model, local or remote.

The step (``fastrag.ingestion.steps.embedding.Embedder``) batches, caches and refuses
over-long input; a model only turns a batch of texts into vectors and describes itself:
a nonsecret ``identity`` (part of cache keys: it must change whenever vectors could), its
``dimension``, its input limit and the tokenizer that measures against that limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeAlias, runtime_checkable

from fastrag.tokenization import Tokenizer

__all__ = ["EmbeddingModel", "Vector"]

Vector: TypeAlias = tuple[float, ...]
"""One embedding: an immutable tuple of Python floats (what chunk metadata can carry)."""


@runtime_checkable
class EmbeddingModel(Protocol):
    """A model that embeds batches of texts asynchronously.

    ``identity`` names the model and every setting that changes its vectors (weights,
    endpoint, requested dimensions, normalization) and never a credential. ``dimension``
    is the vector length, or None while it cannot be known without calling the model (an
    HTTP endpoint serving a model fastrag has no table entry for). ``max_input_tokens``
    is the longest input the model reads in full, counted by ``tokenizer`` exactly as the
    model counts it (special tokens included); either may be None when unknown, and then
    no text can be checked before it is sent. ``embed`` returns one vector per text, in
    order; it must not truncate silently when it can know better.
    """

    @property
    def identity(self) -> str:
        """Stable, nonsecret name of everything that determines the vectors."""
        ...

    @property
    def dimension(self) -> int | None:
        """Length of every vector, or None until the model has answered once."""
        ...

    @property
    def max_input_tokens(self) -> int | None:
        """Longest input, in the model's tokens, that the model reads without truncating."""
        ...

    @property
    def tokenizer(self) -> Tokenizer | None:
        """Counts texts in the model's own tokens (as ``max_input_tokens`` does), or None."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order (one model call or request per invocation)."""
        ...
