"""Deterministic embedding models for the embedding-distance chunker tests.

They are real ``EmbeddingModel`` implementations wrapped in the real ``Embedder`` step —
not mocks of fastrag code — whose vectors are chosen by hand (``TableModel``) or derived
from the text's SHA-256 (``HashModel``), so cut points can be computed on paper and both
chunkers see identical vectors for identical strings.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence

from fastrag.ingestion.steps.embedding import Embedder
from fastrag.llm import Vector
from fastrag.models import Document


class TableModel:
    """Vectors looked up by exact text; an unknown text is a test bug and raises."""

    identity = "table-model:v1"
    dimension = 2
    max_input_tokens = None
    tokenizer = None

    def __init__(self, table: Mapping[str, Vector]) -> None:
        self.table = dict(table)
        self.calls: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls.append(list(texts))
        return [self.table[text] for text in texts]


class HashModel:
    """Eight pseudo-random components per text, from its SHA-256; same text, same vector."""

    identity = "hash-model:sha256:8"
    dimension = 8
    max_input_tokens = None
    tokenizer = None

    def __init__(self) -> None:
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        await asyncio.sleep(0)
        return [_hashed(text) for text in texts]


def _hashed(text: str) -> Vector:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return tuple((digest[i] - 127.5) / 127.5 for i in range(8))


def table_embedder(table: Mapping[str, Vector]) -> Embedder:
    return Embedder(TableModel(table), batch_size=4)


def hash_embedder() -> Embedder:
    return Embedder(HashModel(), batch_size=16)


def document(text: str, name: str = "doc") -> Document:
    return Document(name, f"{name}.md", text, {"content_format": "markdown"})


class LangchainTable:
    """Sync LangChain ``Embeddings`` over the same model, for running LangChain directly."""

    def __init__(self, model: TableModel | HashModel) -> None:
        self.model = model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(v) for v in asyncio.run(self.model.embed(texts))]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
