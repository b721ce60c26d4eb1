"""``SemanticChunker``: a chat model groups a document's blocks by topic; text stays source.

The document is cut into blocks (paragraphs, long ones divided at whitespace to at most
``chunk_size`` characters), blocks are sent in windows of at most ``max_input_chars``
source characters, and the model answers, per window, where each group starts. A chunk is
the contiguous source range from its group's first block to its last: never rewritten,
never reordered, every block in exactly one chunk. Groups never cross a window edge.

Failures are kept apart by kind. An invalid answer or a permanent model failure raises
``ChunkingError`` (the configuration or the model needs fixing; guessing would hide it).
A transient failure (a timeout, a rate limit, a server fault: ``TransientChatError``,
``TimeoutError``, ``ConnectionError`` or any error with ``transient = True``) propagates
as is, so ``Policy(retries=...)`` can retry the document — unless
``fallback_on_transient_error=True``: then this instance switches to local splitting at
the original block boundaries (consecutive blocks merged up to ``chunk_size``) for the
rest of this document and every later one, and ``fell_back`` says so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking._refiner_protocol import Rejected
from fastrag.ingestion.steps.chunking._semantic_blocks import (
    Span,
    blocks,
    grouped,
    local_groups,
    windows,
)
from fastrag.ingestion.steps.chunking._semantic_protocol import (
    GROUPING_PROMPT_VERSION,
    grouping_messages,
    parse_group_starts,
)
from fastrag.ingestion.steps.chunking.base import Chunker, Piece

if TYPE_CHECKING:
    from fastrag.llm.chat import ChatModel
    from fastrag.models import Document
    from fastrag.pipeline import CacheSetting, Policy

__all__ = ["SemanticChunker"]

_VERSION: Final = 1


class SemanticChunker(Chunker):
    """Ask a chat model to group text blocks by topic, preserving source text.

    ``chunk_size`` is a target in characters, not a hard output limit. Long paragraphs are
    divided into blocks of that size before grouping. ``max_input_chars`` bounds the
    source text sent in each model call; documents exceeding it are processed in
    consecutive windows. Use ``asplit`` or bind this chunker into a pipeline for
    asynchronous calls. With ``fallback_on_transient_error``, temporary model failures
    switch this instance to local splitting at the original block boundaries. Invalid
    model responses and permanent failures still raise. Every piece carries
    ``{"start_index": offset}``: ``content[offset:offset + len(text)] == text``.
    """

    accepted_content_formats = frozenset({"markdown", "text"})

    def __init__(
        self,
        *,
        llm: ChatModel,
        chunk_size: int = 1000,
        max_input_chars: int = 12000,
        fallback_on_transient_error: bool = False,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        if not callable(getattr(llm, "complete", None)):
            raise ConfigurationError(
                f"llm must be a ChatModel with an async complete(messages) method "
                f"(got {type(llm).__name__}); e.g. fastrag.llm.OpenAIChatModel(...)"
            )
        for name, value in (("chunk_size", chunk_size), ("max_input_chars", max_input_chars)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigurationError(f"{name} must be a positive int (got {value!r})")
        if chunk_size > max_input_chars:
            raise ConfigurationError(
                f"chunk_size ({chunk_size}) must not exceed max_input_chars "
                f"({max_input_chars}): a block of chunk_size characters must fit in one "
                f"model call; lower chunk_size or raise max_input_chars"
            )
        if not isinstance(fallback_on_transient_error, bool):
            raise ConfigurationError(
                f"fallback_on_transient_error must be True or False "
                f"(got {fallback_on_transient_error!r})"
            )
        self.llm = llm
        self.chunk_size = chunk_size
        self.max_input_chars = max_input_chars
        self.fallback_on_transient_error = fallback_on_transient_error
        self._fell_back = False
        super().__init__(cache=cache, policy=policy)

    @property
    def fell_back(self) -> bool:
        """Whether a transient failure switched this instance to local splitting."""
        return self._fell_back

    def config(self) -> Mapping[str, Any]:
        """Describe semantic grouping without credentials.

        The model is named by its ``identity`` attribute when it has one (nonsecret by the
        ``ChatModel`` contract), else by its class.
        """
        identity = getattr(self.llm, "identity", None)
        if not isinstance(identity, str) or not identity:
            identity = f"{type(self.llm).__module__}.{type(self.llm).__qualname__}"
        return {
            "version": _VERSION,
            "prompt": GROUPING_PROMPT_VERSION,
            "llm": identity,
            "chunk_size": self.chunk_size,
            "max_input_chars": self.max_input_chars,
            "fallback_on_transient_error": self.fallback_on_transient_error,
        }

    def split(self, document: Document) -> Iterator[Piece]:
        """Require async evaluation for model-backed splitting."""
        raise ChunkingError(
            f"{self.name} asks a chat model and cannot split synchronously (document "
            f"{document.id!r}); use 'async for piece in chunker.asplit(document)' or bind "
            f"the chunker into a pipeline (chunker(documents))"
        )

    async def asplit(self, document: Document) -> AsyncIterator[Piece]:
        """Select boundaries, validate them, and yield original contiguous text."""
        content = document.content
        spans = blocks(content, self.chunk_size)
        for number, window in enumerate(windows(spans, self.max_input_chars)):
            for start, end in await self._groups(document, number, window):
                yield content[start:end], {"start_index": start}

    async def _groups(self, document: Document, number: int, window: Sequence[Span]) -> list[Span]:
        """The group ranges of one window: from the model, or local after a fallback."""
        if self._fell_back or len(window) == 1:
            return list(local_groups(window, self.chunk_size))
        content = document.content
        messages = grouping_messages([content[s:e] for s, e in window], self.chunk_size)
        try:
            answer = await self.llm.complete(messages)
        except Exception as error:
            if not _transient(error):
                raise ChunkingError(
                    f"{self.name}: the chat model failed permanently on window {number} of "
                    f"document {document.id!r} ({type(error).__name__}); fix the model "
                    f"settings (key, model name, endpoint) and retry"
                ) from error
            if not self.fallback_on_transient_error:
                raise
            self._fell_back = True
            return list(local_groups(window, self.chunk_size))
        try:
            starts = parse_group_starts(answer, len(window))
        except Rejected as rejected:
            raise ChunkingError(
                f"{self.name}: the chat model's answer for window {number} of document "
                f"{document.id!r} was rejected ({rejected.reason}); it must be exactly "
                f'{{"group_starts": [0, ...]}} with increasing block indices below '
                f"{len(window)}; use a model that follows JSON instructions"
            ) from None
        return list(grouped(window, starts))


def _transient(error: Exception) -> bool:
    """Whether ``error`` is temporary: a timeout, a dropped connection or marked so."""
    if isinstance(error, TimeoutError | ConnectionError):
        return True
    return getattr(error, "transient", False) is True
