"""Both embedding-distance chunkers with the real local all-MiniLM-L6-v2 on real prose.

The text is the introduction of examples/documents/wiki.md (seven paragraphs, a heading,
blank lines, "U.S." abbreviations), without its final newline so that LangChain's
sentences and ours coincide: then the cuts must be equal, ours must be exact source
slices, and the wrapper must return what LangChain returns directly.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from fastrag.ingestion.steps.chunking.embedding_semantic import EmbeddingSemanticChunker
from fastrag.ingestion.steps.chunking.langchain_semantic import LangchainSemanticChunker
from fastrag.ingestion.steps.embedding import SentenceTransformerEmbedder
from tests._paths import REPO
from tests.unit.chunking._semantic_support import document

text_splitter = pytest.importorskip("langchain_experimental.text_splitter")
embeddings_module = pytest.importorskip("langchain_core.embeddings")

WIKI = (REPO / "examples" / "documents" / "wiki.md").read_text(encoding="utf-8")
TEXT = WIKI.split("\n## 1910s")[0].rstrip("\n")
REGEX = r"(?<=[.?!])\s+"
SETTINGS: list[dict[str, Any]] = [
    {"breakpoint_threshold_amount": 70},
    {"breakpoint_threshold_type": "standard_deviation", "breakpoint_threshold_amount": 0.5},
    {"breakpoint_threshold_type": "gradient", "breakpoint_threshold_amount": 60},
]


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    step = SentenceTransformerEmbedder()
    step.dimension  # noqa: B018 - load the model once for the whole module
    return step


class LoopBound(embeddings_module.Embeddings):  # type: ignore[misc]
    """LangChain's interface over the same embedder, called from LangChain's thread."""

    def __init__(self, embedder: SentenceTransformerEmbedder, loop: asyncio.AbstractEventLoop):
        self.embedder, self.loop = embedder, loop

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        future = asyncio.run_coroutine_threadsafe(self.embedder.aembed_texts(texts), self.loop)
        return [list(v) for v in future.result()]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


async def _direct(embedder: SentenceTransformerEmbedder, settings: dict[str, Any]) -> list[str]:
    splitter = text_splitter.SemanticChunker(
        embeddings=LoopBound(embedder, asyncio.get_running_loop()), **settings
    )
    return await asyncio.to_thread(splitter.split_text, TEXT)


@pytest.mark.parametrize("settings", SETTINGS)
async def test_ours_and_langchain_cut_at_the_same_sentences(
    embedder: SentenceTransformerEmbedder, settings: dict[str, Any]
) -> None:
    direct = await _direct(embedder, settings)
    assert len(direct) >= 2
    chunker = EmbeddingSemanticChunker(embeddings=embedder, add_start_index=True, **settings)
    pieces = [p async for p in chunker.asplit(document(TEXT))]
    texts = []
    for piece in pieces:
        assert isinstance(piece, tuple)
        text, metadata = piece
        assert TEXT[metadata["start_index"] : metadata["start_index"] + len(text)] == text
        texts.append(text)
    assert "".join(texts) == TEXT
    # Same sentences per chunk; LangChain rejoined them with single spaces.
    assert [" ".join(s for s in re.split(REGEX, t) if s) for t in texts] == direct


async def test_the_wrapper_returns_what_langchain_returns(
    embedder: SentenceTransformerEmbedder,
) -> None:
    direct = await _direct(embedder, SETTINGS[0])
    wrapped = LangchainSemanticChunker(embeddings=embedder, **SETTINGS[0])
    assert [p async for p in wrapped.asplit(document(TEXT))] == direct
