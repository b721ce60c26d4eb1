"""Settings shared by the two embedding-distance chunkers, validated once, at construction.

``EmbeddingSemanticChunker`` and ``LangchainSemanticChunker`` take the same parameters
(LangChain Experimental's ``SemanticChunker`` plus ``batch_size``); checking them here
means a bad value fails when the chunker is built, naming the value and the fix, rather
than deep inside numpy or ``re`` on the first document.
"""

from __future__ import annotations

import inspect
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, get_args

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking._semantic_stats import DEFAULT_AMOUNTS, ThresholdType

if TYPE_CHECKING:
    from fastrag.ingestion.steps.embedding import Embedder

__all__ = ["SemanticSettings", "check_embedder", "embedder_identity"]

_MAX_BATCH_SIZE: Final = 4096
_MISSING = object()


@dataclass(frozen=True, slots=True)
class SemanticSettings:
    """Validated splitter settings; ``amount`` is resolved to LangChain's default."""

    buffer_size: int
    threshold_type: ThresholdType
    amount: float
    number_of_chunks: int | None
    pattern: re.Pattern[str]
    min_chunk_size: int | None
    add_start_index: bool
    batch_size: int

    @classmethod
    def of(
        cls,
        *,
        buffer_size: object,
        breakpoint_threshold_type: object,
        breakpoint_threshold_amount: object,
        number_of_chunks: object,
        sentence_split_regex: object,
        min_chunk_size: object,
        add_start_index: object,
        batch_size: object,
    ) -> SemanticSettings:
        """Check every parameter; raise ``ConfigurationError`` naming the first bad one."""
        kinds = get_args(ThresholdType)
        if breakpoint_threshold_type not in kinds:
            raise ConfigurationError(
                f"breakpoint_threshold_type must be one of {list(kinds)} "
                f"(got {breakpoint_threshold_type!r})"
            )
        kind: ThresholdType = breakpoint_threshold_type  # type: ignore[assignment]
        amount = _amount(kind, breakpoint_threshold_amount)
        if not isinstance(sentence_split_regex, str):
            raise ConfigurationError(
                f"sentence_split_regex must be a str (got {type(sentence_split_regex).__name__})"
            )
        try:
            pattern = re.compile(sentence_split_regex)
        except re.error as error:
            raise ConfigurationError(
                f"sentence_split_regex {sentence_split_regex!r} is not a valid regular "
                f"expression ({error}); the default is r'(?<=[.?!])\\s+'"
            ) from None
        if not isinstance(add_start_index, bool):
            raise ConfigurationError(
                f"add_start_index must be True or False (got {add_start_index!r})"
            )
        return cls(
            buffer_size=_int("buffer_size", buffer_size, 0),
            threshold_type=kind,
            amount=amount,
            number_of_chunks=_optional_int("number_of_chunks", number_of_chunks),
            pattern=pattern,
            min_chunk_size=_optional_int("min_chunk_size", min_chunk_size),
            add_start_index=add_start_index,
            batch_size=_int("batch_size", batch_size, 1, _MAX_BATCH_SIZE),
        )

    def config(self) -> dict[str, Any]:
        """Every setting that changes the chunks (not ``batch_size``: it only paces calls)."""
        return {
            "buffer_size": self.buffer_size,
            "breakpoint_threshold_type": self.threshold_type,
            "breakpoint_threshold_amount": self.amount,
            "number_of_chunks": self.number_of_chunks,
            "sentence_split_regex": self.pattern.pattern,
            "min_chunk_size": self.min_chunk_size,
            "add_start_index": self.add_start_index,
        }


def check_embedder(embeddings: object) -> Embedder:
    """Accept an SDK ``Embedder`` (anything with ``identity`` and async ``aembed_texts``).

    Members are looked up statically: reading them could load a local model, and building
    a step must stay free.
    """
    aembed = inspect.getattr_static(embeddings, "aembed_texts", _MISSING)
    identity = inspect.getattr_static(embeddings, "identity", _MISSING)
    if aembed is _MISSING or identity is _MISSING or not callable(aembed):
        raise ConfigurationError(
            f"embeddings must be a fastrag Embedder with async aembed_texts(texts) (got "
            f"{type(embeddings).__name__}); e.g. SentenceTransformerEmbedder() or "
            f"OpenAIEmbedder(model=..., api_key=...)"
        )
    return embeddings  # type: ignore[return-value]


def embedder_identity(embeddings: Embedder) -> str:
    """The embedder's nonsecret model identity (never a key), else its class path."""
    identity = getattr(embeddings, "identity", None)
    if isinstance(identity, str) and identity:
        return identity
    return f"{type(embeddings).__module__}.{type(embeddings).__qualname__}"


def _amount(kind: ThresholdType, amount: object) -> float:
    if amount is None:
        return float(DEFAULT_AMOUNTS[kind])
    if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount):
        raise ConfigurationError(
            f"breakpoint_threshold_amount must be a finite number or None (got {amount!r})"
        )
    if kind in ("percentile", "gradient") and not 0 <= amount <= 100:
        raise ConfigurationError(
            f"breakpoint_threshold_amount is a percentile for {kind!r} and must lie in "
            f"[0, 100] (got {amount!r}); the default is {DEFAULT_AMOUNTS[kind]}"
        )
    return float(amount)


def _int(name: str, value: object, low: int, high: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        raise ConfigurationError(f"{name} must be an int {bound} (got {value!r})")
    return value


def _optional_int(name: str, value: object) -> int | None:
    return None if value is None else _int(name, value, 1)
