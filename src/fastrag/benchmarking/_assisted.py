"""The model-assisted chunkers under evaluation: embedding-distance cuts and chat refinement.

Both run through the SDK's own asynchronous path (``asplit``), so what is measured is
what ``fastrag ingest`` produces:

- ``embedding_semantic``: ``EmbeddingSemanticChunker`` with the evaluation's own model
  behind the SDK ``Embedder`` step (``EvalEmbeddingModel``): sentence windows go through
  the same SQLite cache as chunks, and the model's tokenizer and input limit are
  reported so over-long windows are fitted rather than truncated or refused. Its chunks
  are exact slices (``start_index``).
- ``structure`` with ``semantic_mode = "llm"``: a ``ChatBoundaryRefiner`` over
  ``OpenAIChatModel``. The key is read from the environment variable the configuration
  names, when the refiner is built, and lives only in the client's ``Secret``.

What the models did (calls, fallbacks and their reasons, fitted windows) is returned as
counts for the cost section of the results — never any text.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypeVar

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking.refiner import ChatBoundaryRefiner, RefinementResult

if TYPE_CHECKING:
    from fastrag.benchmarking._embedding import CachedEmbedder
    from fastrag.llm import Vector
    from fastrag.tokenization import Tokenizer

__all__ = [
    "EvalEmbeddingModel",
    "TallyingRefiner",
    "build_refiner",
    "collect",
    "embedding_semantic_ranges",
]

_DEFAULT_TIMEOUT: Final = 60.0
"""Seconds per chat call: a local stand-in embeds a paragraph's sentences on a busy CPU."""

T = TypeVar("T")


class EvalEmbeddingModel:
    """The evaluation's cached embedder as an SDK ``EmbeddingModel``.

    ``tokenizer`` counts special tokens (as the model reads) and ``max_input_tokens`` is
    the model's ``max_seq_length``, so the ``Embedder`` step refuses, and the chunker
    fits, exactly what the model would truncate. Embedding runs on the calling thread:
    the SQLite cache connection belongs to it.
    """

    def __init__(
        self, embedder: CachedEmbedder, tokenizer: Tokenizer | None, max_input_tokens: int | None
    ) -> None:
        self._embedder = embedder
        self._tokenizer = tokenizer
        self._max_input_tokens = max_input_tokens

    @property
    def identity(self) -> str:
        """The wrapped model's identity (the cache key's model part)."""
        return self._embedder.identity

    @property
    def dimension(self) -> int | None:
        """Unknown until the model answers (the step then checks every batch against it)."""
        return None

    @property
    def max_input_tokens(self) -> int | None:
        """Word pieces the model reads, special tokens included."""
        return self._max_input_tokens

    @property
    def tokenizer(self) -> Tokenizer | None:
        """The model's tokenizer.json counting ``[CLS]``/``[SEP]``, when known."""
        return self._tokenizer

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Unit vectors through the cache, as tuples of floats."""
        vectors = self._embedder.embed(list(texts))
        return [tuple(float(value) for value in row) for row in vectors]


def special_token_tokenizer(embedder: CachedEmbedder) -> Tokenizer | None:
    """The model's tokenizer counting special tokens, if the model names its file."""
    from fastrag.tokenization import HuggingFaceTokenizer

    path = getattr(embedder.embedder, "tokenizer_file", None)
    if path is None or not os.path.isfile(path):
        return None
    return HuggingFaceTokenizer(path, add_special_tokens=True)


def embedding_semantic_ranges(
    params: Mapping[str, Any],
    documents: Mapping[str, str],
    model: EvalEmbeddingModel,
    notes: dict[str, Any],
) -> dict[str, tuple[tuple[int, int], ...]]:
    """Chunk ranges per document; ``notes`` gets the fitting counts."""
    from fastrag.ingestion.steps.chunking.embedding_semantic import EmbeddingSemanticChunker
    from fastrag.ingestion.steps.embedding import Embedder
    from fastrag.models import Document

    settings = dict(params)
    fmt = str(settings.pop("format", "text"))
    chunker = EmbeddingSemanticChunker(embeddings=Embedder(model), **settings)
    fitted: Counter[str] = Counter()

    async def plan_all() -> dict[str, tuple[tuple[int, int], ...]]:
        ranges = {}
        for name, text in documents.items():
            plan = await chunker.plan(Document(name, name, text, {"content_format": fmt}))
            ranges[name] = plan.ranges
            fitted["resplit_sentences"] += plan.fit.resplit_sentences
            fitted["word_split_sentences"] += plan.fit.word_split_sentences
            fitted["narrowed_windows"] += plan.fit.narrowed_windows
            fitted["fitted_documents"] += plan.fit.changed
        return ranges

    ranges = asyncio.run(plan_all())
    notes["window_fitting"] = {key: fitted[key] for key in sorted(fitted)}
    return ranges


@dataclass
class Tally:
    """What the refiner did over a whole corpus (counts only)."""

    paragraphs: int = 0
    calls: int = 0
    cache_hits: int = 0
    proposed: int = 0
    """Boundaries the model chose (all validated as allowed offsets)."""
    allowed: int = 0
    """Offsets it was offered."""
    fallbacks: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready counts."""
        return {
            "paragraphs_asked": self.paragraphs,
            "model_calls": self.calls,
            "model_cache_hits": self.cache_hits,
            "boundaries_offered": self.allowed,
            "boundaries_chosen": self.proposed,
            "fallbacks": dict(sorted(self.fallbacks.items())),
        }


class TallyingRefiner(ChatBoundaryRefiner):
    """``ChatBoundaryRefiner`` that also counts its results for the evaluation's report."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.tally = Tally()

    async def refine(self, *, node_id: str, text: str, allowed: Sequence[int]) -> RefinementResult:
        """The parent's answer, counted."""
        result = await super().refine(node_id=node_id, text=text, allowed=allowed)
        tally = self.tally
        tally.paragraphs += 1
        tally.calls += result.calls
        tally.cache_hits += result.cache_hit
        tally.allowed += len(set(allowed))
        tally.proposed += len(result.boundaries)
        if result.fallback is not None:
            tally.fallbacks[result.fallback] += 1
        return result


def build_refiner(params: dict[str, Any]) -> TallyingRefiner:
    """Pop the ``llm_*`` settings from ``params`` and build the refiner they describe."""
    from fastrag.llm import OpenAIChatModel

    base_url = str(params.pop("llm_base_url"))
    model_name = str(params.pop("llm_model"))
    key_variable = params.pop("llm_api_key_env", None)
    timeout = float(params.pop("llm_timeout", _DEFAULT_TIMEOUT))
    retries = int(params.pop("llm_retries", 0))
    concurrency = int(params.pop("llm_concurrency", 2))
    key = None
    if key_variable is not None:
        key = os.environ.get(str(key_variable))
        if not key:
            raise ConfigurationError(
                f"llm_api_key_env names ${key_variable}, which is not set; export the key "
                f"there, or drop llm_api_key_env for an endpoint that needs none"
            )
    chat = OpenAIChatModel(
        model_name, api_key=key, base_url=base_url, timeout=timeout, max_retries=retries
    )
    return TallyingRefiner(
        llm=chat,
        identity=chat.identity,
        allow_external_transmission=True,  # the configuration asked for semantic_mode llm
        timeout=timeout * (retries + 1) + 1.0,
        concurrency=concurrency,
    )


def collect(names: Sequence[str], split: Callable[[str], AsyncIterator[T]]) -> dict[str, list[T]]:
    """Every piece of every document, in order, from one event loop."""

    async def run() -> dict[str, list[T]]:
        return {name: [piece async for piece in split(name)] for name in names}

    return asyncio.run(run())
