"""``StructureAwareChunker`` as a pipeline step: identity, capabilities, replay, validation."""

from __future__ import annotations

from typing import Any

import pytest

from fastrag.exceptions import ChunkingError
from fastrag.ingestion.steps.chunking import (
    StructureAwareChunker,
    TiktokenTokenizer,
    Utf8ByteTokenizer,
)
from fastrag.models import ContentFormat, Document
from fastrag.normalization import NormalizedDocument, NormalizerRegistry
from fastrag.packing.validation import ChunkValidation
from fastrag.pipeline import ExecutionContext, InMemoryCacheStore, IterableSource
from fastrag.tokenization import TiktokenTokenizer as LayerOneTiktoken

GUIDE = Document(
    "guide",
    "tests",
    "# Guide\n\n"
    + "".join(f"## Part {n}\n\n" + "Pears need water and sun. " * 8 + "\n\n" for n in range(5)),
    {"content_format": "markdown", "tenant": "acme"},
)


def test_the_default_tokenizer_is_offline_cl100k() -> None:
    chunker = StructureAwareChunker(cache=False)
    assert isinstance(chunker.tokenizer, LayerOneTiktoken)
    assert chunker.tokenizer.identity == "cl100k_base"
    assert TiktokenTokenizer is LayerOneTiktoken


def test_capabilities_follow_the_registry() -> None:
    registry = NormalizerRegistry(builtins=False)
    chunker = StructureAwareChunker(normalizers=registry, tokenizer=Utf8ByteTokenizer())
    assert chunker.accepted_content_formats == frozenset()
    registry.register("text", NormalizerRegistry().get("text"))
    assert chunker.accepted_content_formats == frozenset({"text"})
    assert StructureAwareChunker(tokenizer=Utf8ByteTokenizer()).accepted_content_formats >= {
        "markdown",
        "rst",
        "html",
        "text",
    }
    with pytest.raises(ChunkingError, match="markdown"):
        chunker.validate_input(GUIDE)


def test_config_names_every_output_choice() -> None:
    chunker = StructureAwareChunker(
        tokenizer=Utf8ByteTokenizer(), target_tokens=200, max_tokens=300
    )
    config = chunker.config()
    assert config["tokenizer"] == "utf8-bytes:v1"
    assert config["packing"]["max_tokens"] == 300
    assert config["normalizers"]["markdown"].startswith("markdown:")
    other = StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), target_tokens=200, max_tokens=301)
    assert chunker.config_hash != other.config_hash
    assert chunker.replay_needs_content is True
    assert chunker.content_format == ContentFormat.MARKDOWN


async def test_fresh_and_replayed_output_are_equal_and_validated() -> None:
    reports: list[ChunkValidation] = []
    store = InMemoryCacheStore()
    chunker = StructureAwareChunker(
        tokenizer=Utf8ByteTokenizer(),
        target_tokens=200,
        max_tokens=260,
        cache=store,
        diagnostics=reports.append,
    )
    fresh = await chunker(IterableSource([GUIDE])).run()
    replayed = await chunker(IterableSource([GUIDE])).run()
    assert fresh == replayed and len(fresh) > 1
    assert len(reports) == 2 and all(r.chunk_count == len(fresh) for r in reports)
    assert [chunk.metadata["chunk_index"] for chunk in fresh] == list(range(len(fresh)))
    for chunk in fresh:
        assert chunk.metadata["parent_id"] == "guide"
        assert chunk.metadata["tenant"] == "acme"
        assert chunk.metadata["content_format"] == ContentFormat.MARKDOWN


class _CountingRegistry(NormalizerRegistry):
    """The built-in normalizers, counting the trees they build."""

    def __init__(self) -> None:
        super().__init__()
        self.built = 0

    def normalize(self, document: Document) -> NormalizedDocument:
        self.built += 1
        return super().normalize(document)


async def test_a_pipeline_validates_on_the_tree_it_packed_and_a_direct_split_keeps_none() -> None:
    registry = _CountingRegistry()
    chunker = StructureAwareChunker(
        tokenizer=Utf8ByteTokenizer(), target_tokens=200, max_tokens=260, normalizers=registry
    )
    other = Document("other", "tests", GUIDE.content, dict(GUIDE.metadata))
    chunks = await chunker(IterableSource([GUIDE, other])).run()
    assert registry.built == 2 and len(chunks) > 2  # one tree per document, packed and checked
    assert not chunker._trees  # validate_output took each one
    for _ in range(3):
        list(chunker.split(GUIDE))
    # A caller who never validates leaves nothing behind (it used to keep 64 trees).
    assert registry.built == 5 and not chunker._trees
    own = [chunk for chunk in chunks if chunk.metadata["parent_id"] == "guide"]
    await chunker.validate_output(GUIDE, own, ExecutionContext())  # normalizes again
    assert registry.built == 6


async def test_chunk_ids_change_with_configuration_and_embedding_context() -> None:
    base = await _ids(target_tokens=200, max_tokens=260)
    assert base == await _ids(target_tokens=200, max_tokens=260)
    assert set(base).isdisjoint(await _ids(target_tokens=200, max_tokens=261))
    flat = await _ids(target_tokens=200, max_tokens=260, include_heading_path_in_embedding=False)
    assert set(base).isdisjoint(flat)


async def _ids(**options: Any) -> list[str]:
    chunker = StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), cache=False, **options)
    return [chunk.id for chunk in await chunker(IterableSource([GUIDE])).run()]


async def test_tampered_replay_fails_validation() -> None:
    store = InMemoryCacheStore()
    chunker = StructureAwareChunker(
        tokenizer=Utf8ByteTokenizer(), target_tokens=200, max_tokens=260, cache=store
    )
    await chunker(IterableSource([GUIDE])).run()
    (key,) = list(store._entries)  # type: ignore[attr-defined]
    entry = store.get_documents([key])[key]
    store.put(key, entry[:-1])  # a chunk lost in the cache
    with pytest.raises(ChunkingError, match="coverage"):
        await chunker(IterableSource([GUIDE])).run()


def test_split_normalized_takes_a_tree_and_split_takes_a_document() -> None:
    chunker = StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), cache=False)
    normalized = chunker.normalizers.normalize(GUIDE)
    assert list(chunker.split(GUIDE)) == list(chunker.split_normalized(normalized))
    with pytest.raises(Exception, match="NormalizedDocument"):
        list(chunker.split_normalized(GUIDE))  # type: ignore[arg-type]


async def test_async_apis_give_the_synchronous_pieces() -> None:
    chunker = StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), cache=False)
    normalized = chunker.normalizers.normalize(GUIDE)
    expected = list(chunker.split_normalized(normalized))
    assert [p async for p in chunker.asplit_normalized(normalized)] == expected
    assert [p async for p in chunker.asplit(GUIDE)] == expected
