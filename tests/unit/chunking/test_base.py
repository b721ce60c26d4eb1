"""The ``Chunker`` base: chunk identity, numbering, metadata, validation, cache replay."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ChunkingError
from fastrag.ingestion.steps.chunking import Chunker
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import (
    CacheHit,
    CacheStore,
    DocumentChunked,
    EventRecorder,
    InMemoryCacheStore,
    Pipeline,
    Policy,
    SqliteCacheStore,
)

REPO = Path(__file__).resolve().parents[3]


# The seed-001 example, as written (its "\\n\\n" is the docs' rendering of "\n\n").
class ParagraphChunker(Chunker):
    def __init__(self, *, max_chars: int = 400, cache=False, policy=None):  # type: ignore[no-untyped-def]
        super().__init__(cache=cache, policy=policy)
        self.max_chars = max_chars

    def config(self):  # type: ignore[no-untyped-def]
        return {"max_chars": self.max_chars}

    def split(self, document: Document) -> Iterator[str]:
        for paragraph in document.content.split("\n\n"):
            yield paragraph[: self.max_chars]


DOCS = [
    Document("guide", "guide.md", "Intro.\n\nBody text.\n\n   \n\nEnd.", {"lang": "en"}),
    Document("notes", "notes.txt", "Only one paragraph here."),
]


def _expected_id(parent_id: str, index: int, text: str) -> str:
    """The documented identity, computed independently of the implementation."""
    digest = hashlib.sha256()
    for part in (parent_id, str(index), text):
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def _run(chunker: Chunker, docs: list[Any], **kwargs: Any) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    output = Pipeline(chunker(docs), listeners=[recorder], **kwargs).run_sync()
    return output, recorder


def test_the_seed_example_runs_as_written() -> None:
    chunks = asyncio.run(ParagraphChunker(max_chars=5)(DOCS).run())
    assert [c.content for c in chunks] == ["Intro", "Body ", "End.", "Only "]
    first = chunks[0]
    assert first.source_id == "guide.md"
    assert dict(first.metadata) == {"lang": "en", "parent_id": "guide", "chunk_index": 0}
    assert first.id == _expected_id("guide", 0, "Intro")
    assert ParagraphChunker().cache is False
    assert ParagraphChunker().event_name == "Chunking"


def test_whitespace_pieces_are_dropped_before_numbering() -> None:
    chunks = asyncio.run(ParagraphChunker()(DOCS[:1]).run())
    assert [(c.content, c.metadata["chunk_index"]) for c in chunks] == [
        ("Intro.", 0),
        ("Body text.", 1),
        ("End.", 2),
    ]
    assert [c.id for c in chunks] == [
        _expected_id("guide", i, c.content) for i, c in enumerate(chunks)
    ]


def test_ids_are_deterministic_and_depend_on_parent_index_and_text() -> None:
    again = asyncio.run(ParagraphChunker()(DOCS).run())
    assert again == asyncio.run(ParagraphChunker()(DOCS).run())
    renamed = [Document("other", d.source_id, d.content, d.metadata) for d in DOCS[:1]]
    assert {c.id for c in asyncio.run(ParagraphChunker()(renamed).run())}.isdisjoint(
        c.id for c in again
    )


class PieceChunker(Chunker):
    """Yields (text, metadata) pieces that try to override the reserved keys."""

    accepted_content_formats = frozenset({"markdown", "custom"})

    def __init__(self, *, content_format: ContentFormat | None = None) -> None:
        super().__init__()
        self.content_format = content_format

    def config(self) -> Mapping[str, Any]:
        return {"content_format": self.content_format}

    def split(self, document: Document) -> Iterator[str | tuple[str, Mapping[str, Any]]]:
        yield "plain"
        yield (
            "with metadata",
            {"lang": "fr", "chunk_index": 99, "parent_id": "x", "content_format": "custom"},
        )


def test_piece_metadata_merges_over_the_parent_and_lineage_comes_last() -> None:
    parent = Document("p", "s", "ignored", {"lang": "en", "content_format": "markdown", "k": 1})
    plain, rich = asyncio.run(PieceChunker()([parent]).run())
    assert dict(plain.metadata) == {
        "lang": "en",
        "content_format": "markdown",
        "k": 1,
        "parent_id": "p",
        "chunk_index": 0,
    }
    assert dict(rich.metadata) == {
        "lang": "fr",
        "content_format": "custom",
        "k": 1,
        "parent_id": "p",
        "chunk_index": 1,
    }


def test_content_format_override_is_applied_last() -> None:
    parent = Document("p", "s", "ignored", {"content_format": "markdown"})
    chunks = asyncio.run(PieceChunker(content_format=ContentFormat.TEXT)([parent]).run())
    assert [c.metadata["content_format"] for c in chunks] == ["text", "text"]


def test_a_non_document_item_raises_a_chunking_error_naming_it() -> None:
    with pytest.raises(
        ChunkingError, match=r"ParagraphChunker chunks .*Document items \(got str: 'raw"
    ):
        asyncio.run(ParagraphChunker()(["raw text"]).run())


def test_an_unaccepted_format_names_the_document_its_format_and_the_accepted_ones() -> None:
    html = Document("page-7", "page.html", "<p>x</p>", {"content_format": ContentFormat.HTML})
    with pytest.raises(ChunkingError) as caught:
        asyncio.run(PieceChunker()([html]).run())
    message = str(caught.value)
    assert "'page-7'" in message
    assert "'html'" in message
    assert "['custom', 'markdown']" in message


def test_bad_inputs_under_skip_are_reported_not_dropped() -> None:
    items = [
        "raw",
        Document("t", "s", "plain text"),
        Document("m", "s", "x", {"content_format": "markdown"}),
    ]
    output, events = _run(PieceChunker(), items, policy=Policy(on_failure="skip"))
    assert {c.metadata["parent_id"] for c in output} == {"m"}
    assert [(f.item_id, f.error_type) for f in events.failures] == [
        ("item #0 (str)", "ChunkingError"),
        ("t", "ChunkingError"),
    ]


def test_a_malformed_piece_is_a_chunking_error() -> None:
    class Broken(ParagraphChunker):
        def split(self, document: Document) -> Iterator[str]:
            yield ("text", "not a mapping")  # type: ignore[misc]

    with pytest.raises(ChunkingError, match=r"yielded a tuple .* for document 'notes'"):
        asyncio.run(Broken()(DOCS[1:]).run())


def test_binding_and_evaluating_do_not_split_until_consumed() -> None:
    class Counting(ParagraphChunker):
        splits = 0

        def split(self, document: Document) -> Iterator[str]:
            Counting.splits += 1
            yield from super().split(document)

    chunker = Counting()(DOCS)
    stream = chunker.evaluate(Pipeline(chunker).context())
    assert Counting.splits == 0
    asyncio.run(stream.aclose())  # type: ignore[attr-defined]
    assert Counting.splits == 0


class InterleavingChunker(Chunker):
    """Model-backed style: awaits between pieces so concurrent documents interleave."""

    def __init__(self, log: list[str], *, policy: Policy | None = None) -> None:
        super().__init__(cache=False, policy=policy)
        self.log = log

    def config(self) -> Mapping[str, Any]:
        return {}

    def split(self, document: Document) -> Iterator[str]:
        raise AssertionError("asplit is used instead")

    async def asplit(self, document: Document) -> AsyncIterator[str]:
        for word in document.content.split():
            await asyncio.sleep(0)
            self.log.append(document.id)
            yield word


def test_two_documents_chunked_concurrently_number_independently() -> None:
    log: list[str] = []
    chunker = InterleavingChunker(log, policy=Policy(concurrency=2))
    docs = [Document("a", "s", "a0 a1 a2 a3"), Document("b", "s", "b0 b1 b2")]
    output, _ = _run(chunker, docs)
    assert log[:4] != ["a", "a", "a", "a"]  # the two splits really interleaved
    by_parent: dict[str, list[tuple[int, str]]] = {}
    for chunk in output:
        by_parent.setdefault(chunk.metadata["parent_id"], []).append(
            (chunk.metadata["chunk_index"], chunk.content)
        )
    assert by_parent == {
        "a": [(0, "a0"), (1, "a1"), (2, "a2"), (3, "a3")],
        "b": [(0, "b0"), (1, "b1"), (2, "b2")],
    }
    parents = [chunk.metadata["parent_id"] for chunk in output]
    assert parents in (["b"] * 3 + ["a"] * 4, ["a"] * 4 + ["b"] * 3)  # contiguous per parent


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> CacheStore:
    if request.param == "memory":
        return InMemoryCacheStore()
    return SqliteCacheStore(tmp_path / "chunks.sqlite")


def test_cached_replay_equals_fresh_output_and_fires_the_same_events(store: CacheStore) -> None:
    docs = [*DOCS, Document("meta", "m", "x\n\ny", {"path": ("a", "b"), "n": [1, (2,)]})]
    fresh, fresh_events = _run(ParagraphChunker(cache=store), docs)
    replayed, replay_events = _run(ParagraphChunker(cache=store), docs)
    assert replayed == fresh
    assert [c.metadata for c in replayed] == [c.metadata for c in fresh]
    assert type(replayed[-1].metadata["path"]) is tuple
    assert type(replayed[-1].metadata["n"][1]) is tuple
    assert len(replay_events.of_type(CacheHit)) == len(docs)
    assert [e for e in replay_events.events if not isinstance(e, CacheHit)] == fresh_events.events
    chunked = fresh_events.of_type(DocumentChunked)
    assert [e.document_id for e in chunked] == [c.id for c in fresh]  # type: ignore[attr-defined]
    assert {e.event_name for e in chunked} == {"Chunking"}


_WRITER = """
import asyncio, sys
from fastrag.pipeline import SqliteCacheStore
from tests.unit.chunking.test_base import DOCS, ParagraphChunker
store = SqliteCacheStore(sys.argv[1])
chunks = asyncio.run(ParagraphChunker(cache=store)(DOCS).run())
store.close()
print(len(chunks))
"""


def test_sqlite_replay_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    path = tmp_path / "chunks.sqlite"
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    result = subprocess.run(
        [sys.executable, "-c", _WRITER, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env=env,
    )
    store = SqliteCacheStore(path)
    replayed, events = _run(ParagraphChunker(cache=store), DOCS)
    store.close()
    assert len(events.of_type(CacheHit)) == len(DOCS)
    assert replayed == asyncio.run(ParagraphChunker()(DOCS).run())
    assert result.stdout.strip() == str(len(replayed))
