"""The ``Embedder`` step: chunks in, the same chunks out with their vectors in metadata.

What is embedded is ``build_embedding_text(content, metadata)``: for a structural chunk
(``structure_version`` marker) its heading path, a blank line and its content — exactly
the text its token budget was measured on; for any other chunk its content unchanged.
The vector goes to ``metadata["embedding"]`` (a tuple of floats) and the model's
nonsecret identity to ``metadata["embedding_model"]``; id and content are untouched.

Batching across items, caching per item. ``DocumentStep`` hands each window of items
(``Policy.window``) to ``_settle``: cache hits and rejected items are already decided
there. The embedder first embeds every remaining item's text in batches of
``batch_size`` — one model call per batch — and parks each vector (or the batch's
error) under its item; ``transform`` then only picks its vector up, so the cache write,
``validate_output``, events and failure policy stay ``DocumentStep``'s, per item. An item
whose batch failed raises that error as its first attempt; the policy's retries (if
any) re-embed it alone. The window is widened to ``batch_size`` unless a window was set
explicitly, so a batch is never cut short by the read-ahead. ``Policy.timeout`` bounds
each item's attempt; a batch call is bounded by the model itself (the HTTP client's
``timeout``), since a local model's forward pass cannot be interrupted anyway.

Over-long input is refused, never truncated: each text is counted with the model's own
tokenizer (one batched count per window) and a chunk over ``max_input_tokens`` fails
with ``InputTooLongError`` naming the chunk id and both numbers, before any model call
and without retries (it is rejected like an invalid input).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, ClassVar

from fastrag.exceptions import ConfigurationError, PipelineError
from fastrag.llm import EmbeddingModel, InputTooLongError, Vector
from fastrag.llm._vectors import check_vectors
from fastrag.models import Document
from fastrag.packing.contract import build_embedding_text
from fastrag.pipeline import (
    CacheSetting,
    DocumentEmbedded,
    DocumentStep,
    ExecutionContext,
    ItemProduced,
    Policy,
)
from fastrag.pipeline.document_step import _Job
from fastrag.tokenization import Tokenizer, count_many

__all__ = ["EMBEDDING_KEY", "EMBEDDING_MODEL_KEY", "Embedder"]

EMBEDDING_KEY = "embedding"
EMBEDDING_MODEL_KEY = "embedding_model"
_MAX_BATCH_SIZE = 4096
_MISSING = object()


class Embedder(DocumentStep):
    """Embed chunk ``Document`` items with an ``EmbeddingModel``, ``batch_size`` at a time.

    Usable directly with any model (``Embedder(my_model)``); ``SentenceTransformerEmbedder``
    and ``OpenAIEmbedder`` build theirs from plain settings. ``config()`` holds only the
    model's nonsecret identity, so the cache never mixes vectors of two models and never
    depends on a key or on ``batch_size``. ``aembed_texts`` is the same path for callers
    that embed raw strings (the embedding-based chunkers).
    """

    event_name = "Embedding"
    produced_event: ClassVar[type[ItemProduced]] = DocumentEmbedded

    def __init__(
        self,
        model: EmbeddingModel,
        *,
        batch_size: int = 32,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        super().__init__(cache=cache, policy=policy)
        if not _looks_like_model(model):
            raise ConfigurationError(
                f"{type(self).__name__} needs an EmbeddingModel (identity, dimension, "
                f"max_input_tokens, tokenizer, async embed); got {type(model).__name__}"
            )
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, int)
            or not 1 <= batch_size <= _MAX_BATCH_SIZE
        ):
            raise ConfigurationError(
                f"batch_size must be an int from 1 to {_MAX_BATCH_SIZE} (got {batch_size!r})"
            )
        self._model = model
        self._batch_size = batch_size
        self._ready: dict[int, Vector | Exception] = {}
        self._window_memo: tuple[Policy, Policy] | None = None
        self._dimension_seen: int | None = None

    @property
    def model(self) -> EmbeddingModel:
        """The model this step embeds with."""
        return self._model

    @property
    def batch_size(self) -> int:
        """Texts per model call."""
        return self._batch_size

    @property
    def identity(self) -> str:
        """The model's nonsecret identity (also written to ``metadata["embedding_model"]``)."""
        return self._model.identity

    @property
    def tokenizer(self) -> Tokenizer | None:
        """The model's tokenizer: chunk with it so every chunk fits ``max_input_tokens``."""
        return self._model.tokenizer

    @property
    def max_input_tokens(self) -> int | None:
        """The model's input limit in its own tokens, or None when unknown."""
        return self._model.max_input_tokens

    @property
    def dimension(self) -> int | None:
        """The vector length, or None until the model has answered once."""
        return self._model.dimension

    def config(self) -> Mapping[str, Any]:
        """The model identity and the embedding-text rule; no key, no batch size."""
        return {"model": self.identity, "text": "build_embedding_text"}

    @staticmethod
    def embedding_text(document: Document) -> str:
        """The text embedded for ``document`` (``build_embedding_text`` of its fields)."""
        return build_embedding_text(document.content, document.metadata)

    async def aembed_texts(self, texts: Sequence[str]) -> list[Vector]:
        """Embed raw strings in order, ``batch_size`` per model call, refusing over-long ones.

        No step cache is involved; an over-long text raises ``InputTooLongError`` naming
        its position (``text #i``), never its content.
        """
        items = list(texts)
        for position, text in enumerate(items):
            if not isinstance(text, str):
                raise ConfigurationError(
                    f"aembed_texts takes strings; text #{position} is {type(text).__name__}"
                )
        labels = [f"text #{index}" for index in range(len(items))]
        refusals = self._refusals(self._lengths(items), labels)
        for refusal in refusals:
            if refusal is not None:
                raise refusal
        vectors: list[Vector] = []
        for start in range(0, len(items), self._batch_size):
            vectors.extend(await self._embed_batch(items[start : start + self._batch_size]))
        return vectors

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        """Attach the vector prefetched for ``item``, or embed it alone (a retry, a miss)."""
        ready = self._ready.pop(id(item), None)
        if isinstance(ready, Exception):
            raise ready.with_traceback(None)
        if ready is None:
            text = self.embedding_text(item)
            refusal = self._refusals(self._lengths([text]), [_label(item)])[0]
            if refusal is not None:
                raise refusal
            ready = (await self._embed_batch([text]))[0]
        yield item.with_metadata(**{EMBEDDING_KEY: ready, EMBEDDING_MODEL_KEY: self.identity})

    async def validate_output(
        self, item: Document, produced: Sequence[Document], context: ExecutionContext
    ) -> None:
        """One output per chunk, same id and content, a finite vector of one dimension."""
        if len(produced) != 1 or produced[0].id != item.id or produced[0].content != item.content:
            raise PipelineError(
                f"{self.name} must produce exactly the input chunk {item.id!r} with its "
                f"vector added (got {len(produced)} documents); clear a corrupt cache entry"
            )
        metadata = produced[0].metadata
        vector = metadata.get(EMBEDDING_KEY)
        if (
            not isinstance(vector, tuple)
            or not vector
            or not all(type(value) is float and math.isfinite(value) for value in vector)
        ):
            raise PipelineError(
                f"{self.name}: chunk {item.id!r} has no finite float vector in "
                f"metadata['{EMBEDDING_KEY}']; clear the cache entry or re-embed"
            )
        if metadata.get(EMBEDDING_MODEL_KEY) != self.identity:
            raise PipelineError(
                f"{self.name}: chunk {item.id!r} was embedded by another model than "
                f"{self.identity}; clear the cache entry or re-embed"
            )
        if self._dimension_seen is None:
            self._dimension_seen = len(vector)
        elif len(vector) != self._dimension_seen:
            raise PipelineError(
                f"{self.name}: chunk {item.id!r} has a {len(vector)}-dimensional vector, "
                f"others {self._dimension_seen}; one model must give one dimension"
            )

    def effective_policy(self, context: ExecutionContext) -> Policy:
        """The inherited policy, with a window of at least ``batch_size`` unless set."""
        resolved = super().effective_policy(context)
        if resolved.window >= self._batch_size or "window" in resolved.explicit:
            return resolved
        memo = self._window_memo
        if memo is not None and memo[0] is resolved:
            return memo[1]
        widened = resolved.replace(window=self._batch_size)
        self._window_memo = (resolved, widened)
        return widened

    async def _settle(
        self, jobs: list[_Job], concurrency: int, context: ExecutionContext
    ) -> AsyncIterator[_Job]:
        """Embed the window's cache misses in batches, then settle each job as usual."""
        fresh = [job for job in jobs if job.rejection is None and job.cached is None]
        try:
            if fresh:
                await self._prefetch(fresh)
            async for job in super()._settle(jobs, concurrency, context):
                yield job
        finally:
            for job in fresh:
                self._ready.pop(id(job.item), None)

    async def _prefetch(self, jobs: list[_Job]) -> None:
        texts = [self.embedding_text(job.item) for job in jobs]
        lengths = self._lengths(texts)
        refusals = self._refusals(lengths, [_label(job.item) for job in jobs])
        accepted: list[tuple[int, int, _Job, str]] = []
        for position, (job, text, refusal) in enumerate(zip(jobs, texts, refusals, strict=True)):
            if refusal is None:
                size = lengths[position] if lengths is not None else len(text)
                accepted.append((size, position, job, text))
            else:
                job.rejection = refusal  # reported like a failed validate_input: no retry
        # Batches of similar length: a forward pass pads every text to the batch's longest,
        # so cutting batches from the window in length order wastes far less compute.
        # Outputs keep upstream order: vectors are parked per item, not per batch.
        accepted.sort(key=lambda entry: (entry[0], entry[1]))
        for start in range(0, len(accepted), self._batch_size):
            batch = accepted[start : start + self._batch_size]
            try:
                vectors = await self._embed_batch([text for _, _, _, text in batch])
            except Exception as error:  # noqa: BLE001 - becomes each item's first attempt
                for _, _, job, _ in batch:
                    self._ready[id(job.item)] = error
                continue
            for (_, _, job, _), vector in zip(batch, vectors, strict=True):
                self._ready[id(job.item)] = vector

    def _lengths(self, texts: list[str]) -> list[int] | None:
        """Each text's count under the model's tokenizer (one batched call), or None."""
        tokenizer = self._model.tokenizer
        if tokenizer is None or not texts:
            return None
        return count_many(tokenizer, texts)

    def _refusals(
        self, lengths: list[int] | None, labels: list[str]
    ) -> list[InputTooLongError | None]:
        """An ``InputTooLongError`` for each text over the model's limit, else None."""
        limit = self._model.max_input_tokens
        tokenizer = self._model.tokenizer
        if limit is None or tokenizer is None or lengths is None:
            return [None] * len(labels)
        return [
            InputTooLongError(label, count, limit, self.identity, tokenizer.identity)
            if count > limit
            else None
            for label, count in zip(labels, lengths, strict=True)
        ]

    async def _embed_batch(self, texts: list[str]) -> list[Vector]:
        vectors = await self._model.embed(texts)
        check_vectors(
            vectors, expected=len(texts), dimension=self._model.dimension, source=self.identity
        )
        return list(vectors)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(identity={self.identity!r}, batch_size={self._batch_size})"


def _label(item: Document) -> str:
    return f"chunk {item.id!r}"


def _looks_like_model(model: object) -> bool:
    """Whether ``model`` has every ``EmbeddingModel`` member, without reading any.

    ``isinstance(model, EmbeddingModel)`` would evaluate each property on Python 3.11,
    and ``SentenceTransformerModel.dimension`` loads the model: constructing a step must
    stay free (seed 000: building the graph performs no work).
    """
    return all(
        inspect.getattr_static(model, name, _MISSING) is not _MISSING
        for name in ("identity", "dimension", "max_input_tokens", "tokenizer", "embed")
    )
