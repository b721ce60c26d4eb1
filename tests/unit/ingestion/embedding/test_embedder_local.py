"""``SentenceTransformerEmbedder`` with the real all-MiniLM-L6-v2 over real Markdown chunks."""

from __future__ import annotations

import asyncio

import pytest

from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.embedding import (
    InputTooLongError,
    SentenceTransformerEmbedder,
    build_embedding_text,
)
from fastrag.models import Document
from fastrag.packing.contract import embedding_prefix
from fastrag.pipeline import EventRecorder, ExecutionContext, Policy
from tests._paths import CORPUS


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    step = SentenceTransformerEmbedder(batch_size=8)
    step.dimension  # noqa: B018 - load the model once for the whole module
    return step


@pytest.fixture(scope="module")
def chunks(embedder: SentenceTransformerEmbedder) -> list[Document]:
    text = (CORPUS / "web" / "wiki.md").read_text(encoding="utf-8")
    parent = Document("wiki", "web/wiki.md", text, {"content_format": "markdown"})
    max_tokens = embedder.max_input_tokens
    assert max_tokens == 256
    chunker = StructureAwareChunker(
        tokenizer=embedder.tokenizer, max_tokens=max_tokens, target_tokens=120
    )
    return asyncio.run(chunker([parent]).run())


def _distance(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


def test_building_the_step_loads_nothing() -> None:
    fresh = SentenceTransformerEmbedder()
    assert fresh.config_hash and fresh.max_input_tokens == 256 and fresh.tokenizer
    assert fresh.model._model is None  # type: ignore[attr-defined]


async def test_structural_chunks_embed_their_embedding_text(
    embedder: SentenceTransformerEmbedder, chunks: list[Document]
) -> None:
    assert len(chunks) >= 8
    embedded = await embedder(chunks).run()
    assert [d.id for d in embedded] == [c.id for c in chunks]
    texts = [build_embedding_text(c.content, c.metadata) for c in chunks]
    direct = await embedder.aembed_texts(texts)
    for chunk, output, expected in zip(chunks, embedded, direct, strict=True):
        assert len(output.metadata["embedding"]) == 384
        assert output.metadata["embedding_model"] == embedder.identity
        assert output.content == chunk.content
        assert _distance(output.metadata["embedding"], expected) < 1e-6
    # Where a heading path is prepended, the vector is not the content's own.
    prefixed = [
        (c, o) for c, o in zip(chunks, embedded, strict=True) if embedding_prefix(c.metadata)
    ]
    assert len(prefixed) >= 3
    content_only = await embedder.aembed_texts([chunk.content for chunk, _ in prefixed])
    for (_, output), plain in zip(prefixed, content_only, strict=True):
        assert _distance(output.metadata["embedding"], plain) > 1e-3


async def test_chunks_cut_with_the_model_tokenizer_are_never_refused(
    embedder: SentenceTransformerEmbedder, chunks: list[Document]
) -> None:
    tokenizer = embedder.tokenizer
    assert tokenizer is not None
    counts = [tokenizer.count(build_embedding_text(c.content, c.metadata)) for c in chunks]
    assert max(counts) <= 256
    assert all(
        c.metadata["embedding_token_count"] == n for c, n in zip(chunks, counts, strict=True)
    )


async def test_an_over_long_chunk_is_refused_and_the_rest_embedded(
    embedder: SentenceTransformerEmbedder, chunks: list[Document]
) -> None:
    long_chunk = Document("too-long", "x.md", " ".join(["unpredictable"] * 300))
    tokenizer = embedder.tokenizer
    assert tokenizer is not None
    tokens = tokenizer.count(long_chunk.content)
    assert tokens > 256
    recorder = EventRecorder()
    context = ExecutionContext(
        policy=Policy(on_failure="skip", retries=2, backoff=0.0), listeners=(recorder,)
    )
    items = [chunks[0], long_chunk, chunks[1]]
    outputs = [d async for d in embedder(items).evaluate(context)]
    assert [d.id for d in outputs] == [chunks[0].id, chunks[1].id]
    (failure,) = recorder.failures
    assert failure.attempts == 0
    assert f"chunk 'too-long' is {tokens} tokens" in failure.message
    assert "256-token input limit" in failure.message
    assert "unpredictable" not in failure.message
    with pytest.raises(InputTooLongError) as caught:
        await embedder([long_chunk]).run()
    assert (caught.value.tokens, caught.value.limit) == (tokens, 256)
