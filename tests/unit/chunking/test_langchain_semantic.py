"""``LangchainSemanticChunker`` == LangChain's ``SemanticChunker``; parity with ours.

Hash-derived vectors (``HashModel``) make every string's vector fixed, so LangChain run
directly, the wrapper, and ``EmbeddingSemanticChunker`` all see identical vectors. Where
the definitions coincide — sentences separated by single spaces, no separator at the end,
threshold modes — our cuts must be LangChain's; the only difference left is that ours
are exact source slices (each keeps its trailing space).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from fastrag.exceptions import ChunkingError
from fastrag.ingestion.steps.chunking.embedding_semantic import EmbeddingSemanticChunker
from fastrag.ingestion.steps.chunking.langchain_semantic import LangchainSemanticChunker
from fastrag.ingestion.steps.embedding import Embedder
from tests.unit.chunking._semantic_support import HashModel, document

text_splitter = pytest.importorskip("langchain_experimental.text_splitter")
embeddings_module = pytest.importorskip("langchain_core.embeddings")

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
TEXT = " ".join(
    f"{WORDS[i % 10].title()} {WORDS[(i * 3 + i // 10) % 10]} number {i}{'.?!'[i % 3]}"
    for i in range(40)
)
REGEX = r"(?<=[.?!])\s+"


class DirectEmbeddings(embeddings_module.Embeddings):  # type: ignore[misc]
    """LangChain's own interface over the same hash model, synchronously."""

    def __init__(self) -> None:
        self.model = HashModel()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(v) for v in asyncio.run(self.model.embed(texts))]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


SETTINGS: list[dict[str, Any]] = [
    {},
    {"buffer_size": 0},
    {"buffer_size": 2, "breakpoint_threshold_amount": 60},
    {"breakpoint_threshold_type": "standard_deviation", "breakpoint_threshold_amount": 0.5},
    {"breakpoint_threshold_type": "interquartile", "breakpoint_threshold_amount": 0.2},
    {"breakpoint_threshold_type": "gradient", "breakpoint_threshold_amount": 70},
    {"breakpoint_threshold_amount": 50, "min_chunk_size": 120},
    {"number_of_chunks": 5},
    {"add_start_index": True, "breakpoint_threshold_amount": 80},
]


def _direct(text: str, settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    splitter = text_splitter.SemanticChunker(embeddings=DirectEmbeddings(), **settings)
    return [(d.page_content, d.metadata) for d in splitter.create_documents([text])]


async def _wrapped(text: str, settings: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    chunker = LangchainSemanticChunker(embeddings=Embedder(HashModel()), **settings)
    pieces = [p async for p in chunker.asplit(document(text))]
    return [(p, {}) if isinstance(p, str) else (p[0], dict(p[1])) for p in pieces]


@pytest.mark.parametrize("settings", SETTINGS)
async def test_the_wrapper_returns_exactly_what_langchain_returns(settings: dict[str, Any]) -> None:
    direct = await asyncio.to_thread(_direct, TEXT, settings)
    assert len(direct) > 1
    assert await _wrapped(TEXT, settings) == direct


@pytest.mark.parametrize("settings", [s for s in SETTINGS if "number_of_chunks" not in s])
async def test_our_cuts_equal_langchains_where_the_definitions_coincide(
    settings: dict[str, Any],
) -> None:
    direct = [text for text, _ in await asyncio.to_thread(_direct, TEXT, settings)]
    ours = EmbeddingSemanticChunker(embeddings=Embedder(HashModel()), **settings)
    pieces = [p async for p in ours.asplit(document(TEXT))]
    texts = [p if isinstance(p, str) else p[0] for p in pieces]
    assert "".join(texts) == TEXT
    assert [t.removesuffix(" ") for t in texts] == direct


async def test_where_whitespace_differs_only_the_whitespace_differs() -> None:
    # Blank lines and double spaces: LangChain rejoins with one space and leaves an empty
    # last sentence for the final newline (so its distances differ); strip that newline
    # and the sentences, hence the cuts, coincide; only the whitespace between differs.
    spaced = TEXT.replace(". ", ".\n\n").replace("! ", "!  ")
    direct = [t for t, _ in await asyncio.to_thread(_direct, spaced, {"buffer_size": 0})]
    ours = EmbeddingSemanticChunker(embeddings=Embedder(HashModel()), buffer_size=0)
    texts = [p if isinstance(p, str) else p[0] async for p in ours.asplit(document(spaced))]
    assert "".join(texts) == spaced
    assert any("\n\n" in t for t in texts) and not any("\n\n" in t for t in direct)
    rejoined = [" ".join(s for s in re.split(REGEX, t) if s) for t in texts]
    assert rejoined == direct


async def test_langchains_start_index_is_its_own_running_length() -> None:
    pieces = await _wrapped(TEXT, {"add_start_index": True, "breakpoint_threshold_amount": 80})
    offsets = [metadata["start_index"] for _, metadata in pieces]
    running = [sum(len(t) for t, _ in pieces[:i]) for i in range(len(pieces))]
    assert offsets == running  # not source offsets: LangChain dropped the spaces between


def test_split_refuses_synchronous_use() -> None:
    chunker = LangchainSemanticChunker(embeddings=Embedder(HashModel()))
    with pytest.raises(ChunkingError, match="asplit"):
        list(chunker.split(document(TEXT)))


def test_config_has_settings_version_and_identity_but_no_secret() -> None:
    from fastrag.ingestion.steps.embedding import OpenAIEmbedder

    key = "sk-langchain-semantic-never-show-me"
    chunker = LangchainSemanticChunker(
        embeddings=OpenAIEmbedder(model="text-embedding-3-small", api_key=key)
    )
    config = chunker.config()
    assert config["langchain_experimental"] == "0.4.2"
    assert "text-embedding-3-small" in config["embeddings"]
    assert key not in repr(config) and key[-12:] not in chunker.config_hash
    ours = EmbeddingSemanticChunker(
        embeddings=OpenAIEmbedder(model="text-embedding-3-small", api_key=key)
    )
    assert key not in repr(ours.config())


async def test_the_pipeline_runs_it_with_its_chunks() -> None:
    chunker = LangchainSemanticChunker(embeddings=Embedder(HashModel()))
    chunks = await chunker([document(TEXT)]).run()
    direct = await asyncio.to_thread(_direct, TEXT, {})
    assert [c.content for c in chunks] == [t for t, _ in direct]
