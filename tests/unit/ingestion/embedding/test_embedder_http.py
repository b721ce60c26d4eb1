"""The ``Embedder`` step's batching, caching and failure handling, over real HTTP.

``OpenAIEmbedder`` talks to a server started on 127.0.0.1 by each test; its vectors are a
function of the text (``vector_for``), so every check is exact.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.embedding import (
    Embedder,
    EmbeddingError,
    InputTooLongError,
    OpenAIEmbedder,
    build_embedding_text,
)
from fastrag.models import Document
from fastrag.packing.contract import STRUCTURE_VERSION
from fastrag.pipeline import (
    CacheHit,
    DocumentEmbedded,
    EventRecorder,
    ExecutionContext,
    InMemoryCacheStore,
    ItemFailed,
    ItemRetried,
    Policy,
)
from tests.unit.llm._openai_server import (
    DIMENSION,
    Action,
    OpenAIServer,
    running_server,
    vector_for,
)

KEY = "sk-step-test-8b2d-never-show-me"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from running_server()


def _chunks(count: int, prefix: str = "c") -> list[Document]:
    return [
        Document(f"{prefix}{index}", "doc.md", f"Chunk number {index} of {prefix}.", {"n": index})
        for index in range(count)
    ]


def _embedder(server: OpenAIServer, **settings: object) -> OpenAIEmbedder:
    options: dict[str, object] = {"api_key": KEY, "batch_size": 4, "backoff": 0.01}
    options.update(settings)
    return OpenAIEmbedder("test-embedder", base_url=server.base_url, **options)  # type: ignore[arg-type]


async def _run(
    embedder: OpenAIEmbedder, items: list[Document], **context: object
) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    ctx = ExecutionContext(listeners=(recorder,), **context)  # type: ignore[arg-type]
    outputs = [document async for document in embedder(items).evaluate(ctx)]
    return outputs, recorder


async def test_chunks_are_embedded_in_batches_with_their_vectors(server: OpenAIServer) -> None:
    chunks = _chunks(10)
    outputs, recorder = await _run(_embedder(server), chunks)
    assert server.batches() == [4, 4, 2]
    assert [d.id for d in outputs] == [c.id for c in chunks]
    for chunk, output in zip(chunks, outputs, strict=True):
        assert output.content == chunk.content
        assert output.metadata["n"] == chunk.metadata["n"]
        assert output.metadata["embedding"] == vector_for(chunk.content)
        assert output.metadata["embedding_model"] == (
            f"openai-compatible:test-embedder@{server.base_url}/embeddings"
        )
    assert len(recorder.of_type(DocumentEmbedded)) == 10


async def test_structural_chunks_embed_their_heading_path(server: OpenAIServer) -> None:
    structural = Document(
        "s1",
        "doc.md",
        "Body text of the section.",
        {
            "structure_version": STRUCTURE_VERSION,
            "heading_ids": ("h1", "h2"),
            "heading_path": ("Guide", "Install"),
            "displayed_heading_ids": (),
        },
    )
    legacy = Document("l1", "doc.md", "Body text of the section.", {"heading_path": ("Guide",)})
    outputs, _ = await _run(_embedder(server), [structural, legacy])
    sent = server.requests[0].payload["input"]
    heading_first = "Guide > Install\n\nBody text of the section."
    assert sorted(sent) == sorted([heading_first, "Body text of the section."])
    assert heading_first == build_embedding_text(structural.content, structural.metadata)
    assert outputs[0].metadata["embedding"] == vector_for(heading_first)
    assert outputs[1].metadata["embedding"] == vector_for(legacy.content)


async def test_batches_are_cut_in_length_order_and_outputs_keep_theirs(
    server: OpenAIServer,
) -> None:
    chunks = [Document(f"c{n}", "doc.md", "word " * n) for n in (9, 1, 7, 3, 8, 2)]
    outputs, _ = await _run(_embedder(server, batch_size=2), chunks)
    assert [len(r.payload["input"][0].split()) for r in server.requests] == [1, 3, 8]
    assert [[len(t.split()) for t in r.payload["input"]] for r in server.requests] == [
        [1, 2],
        [3, 7],
        [8, 9],
    ]
    assert [d.id for d in outputs] == [c.id for c in chunks]
    assert all(d.metadata["embedding"] == vector_for(d.content) for d in outputs)


async def test_the_window_grows_to_the_batch_size_unless_set(server: OpenAIServer) -> None:
    await _run(_embedder(server, batch_size=100), _chunks(150))
    assert server.batches() == [100, 50]  # the default window is 64
    server.requests.clear()
    await _run(_embedder(server, batch_size=32), _chunks(25), policy=Policy(window=10))
    assert server.batches() == [10, 10, 5]


async def test_cache_is_per_item_and_blind_to_the_key(server: OpenAIServer) -> None:
    cache = InMemoryCacheStore()
    first, _ = await _run(_embedder(server), _chunks(6), cache=cache)
    assert server.batches() == [4, 2]
    other_key = _embedder(server, api_key="sk-another-key")
    assert other_key.config_hash == _embedder(server).config_hash
    mixed = [*_chunks(6), *_chunks(3, prefix="new")]
    again, recorder = await _run(other_key, mixed, cache=cache)
    assert server.batches() == [4, 2, 3]  # only the three new chunks were sent
    assert again[:6] == first
    assert len(recorder.of_type(CacheHit)) == 6


async def test_a_failed_batch_is_retried_item_by_item(server: OpenAIServer) -> None:
    server.script.append(Action(status=500))
    embedder = _embedder(server, max_retries=0)
    outputs, recorder = await _run(embedder, _chunks(10), policy=Policy(retries=1, backoff=0.0))
    assert server.batches() == [4, 4, 2, 1, 1, 1, 1]
    assert sorted(d.id for d in outputs) == sorted(c.id for c in _chunks(10))
    assert all(d.metadata["embedding"] == vector_for(d.content) for d in outputs)
    retried = recorder.of_type(ItemRetried)
    assert [event.item_id for event in retried] == ["c0", "c1", "c2", "c3"]


async def test_a_failed_batch_fails_its_items_only(server: OpenAIServer) -> None:
    server.script.append(Action(status=503))
    embedder = _embedder(server, max_retries=0)
    outputs, recorder = await _run(embedder, _chunks(10), policy=Policy(on_failure="skip"))
    assert [d.id for d in outputs] == [f"c{index}" for index in range(4, 10)]
    failures = recorder.failures
    assert [event.item_id for event in failures] == ["c0", "c1", "c2", "c3"]
    assert all("answered HTTP 503" in event.message for event in failures)
    assert all(KEY not in event.message for event in failures)


async def test_over_long_chunks_are_refused_before_sending(server: OpenAIServer) -> None:
    embedder = OpenAIEmbedder(
        "text-embedding-3-small", api_key=KEY, base_url=server.base_url, dimensions=DIMENSION
    )
    long_text = " ".join(["tokens"] * 9000)
    items = [*_chunks(2), Document("huge", "doc.md", long_text)]
    outputs, recorder = await _run(
        embedder, items, policy=Policy(on_failure="skip", retries=3, backoff=0.0)
    )
    assert [d.id for d in outputs] == ["c0", "c1"]
    assert server.batches() == [2]
    (failure,) = recorder.failures
    assert isinstance(failure, ItemFailed) and failure.attempts == 0
    assert failure.error_type == "InputTooLongError"
    assert "chunk 'huge' is 9000 tokens" in failure.message
    assert "over the 8191-token input limit" in failure.message
    assert "tokens tokens" not in failure.message
    with pytest.raises(InputTooLongError, match="chunk 'huge'"):
        await embedder(items).run()
    with pytest.raises(InputTooLongError, match=r"text #1 is 9000 tokens"):
        await embedder.aembed_texts(["fine", long_text])


async def test_aembed_texts_batches_raw_strings(server: OpenAIServer) -> None:
    texts = [f"sentence {index}." for index in range(9)]
    vectors = await _embedder(server).aembed_texts(texts)
    assert vectors == [vector_for(text) for text in texts]
    assert server.batches() == [4, 4, 1]


async def test_concurrent_items_still_get_their_own_vectors(server: OpenAIServer) -> None:
    outputs, _ = await _run(_embedder(server), _chunks(12), policy=Policy(concurrency=4))
    assert sorted(d.id for d in outputs) == sorted(c.id for c in _chunks(12))
    assert all(d.metadata["embedding"] == vector_for(d.content) for d in outputs)


def test_the_key_is_nowhere_in_the_step(server: OpenAIServer) -> None:
    embedder = _embedder(server)
    shown = [embedder.identity, repr(embedder), str(embedder.config()), embedder.config_hash]
    assert all(KEY not in text for text in shown)
    assert KEY not in repr(embedder.model)
    clone = pickle.loads(pickle.dumps(embedder))
    assert clone.config_hash == embedder.config_hash


async def test_a_wrong_vector_count_fails_the_batch(server: OpenAIServer) -> None:
    server.script.append(Action(body={"data": [{"index": 0, "embedding": [1.0]}]}))
    with pytest.raises(EmbeddingError, match="returned 1 embeddings for 3 texts"):
        await _embedder(server, max_retries=0)(_chunks(3)).run()


def test_settings_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="batch_size"):
        OpenAIEmbedder("m", batch_size=0)
    with pytest.raises(ConfigurationError, match="needs an EmbeddingModel"):
        Embedder(object())  # type: ignore[arg-type]
