"""``StructureAwareChunker(semantic_mode="llm")`` with ``ChatBoundaryRefiner`` and a real
chat server on 127.0.0.1 (``tests/unit/llm/_chat_server.py``).

The model may only move a cut to a sentence start it chose; every failure gives exactly
the heuristic chunks; budgets and coverage are validated on every output (the pipeline
runs ``validate_structure_chunks`` on each); only plain Markdown/RST paragraphs over the
target are ever sent. Chunk ids in "llm" mode always differ from "heuristic" mode's (the
refiner's ``config()`` is part of the engine identity), even where no boundary moved:
the text and spans are then identical, the identity is not.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking import (
    ChatBoundaryRefiner,
    ChunkValidation,
    StructureAwareChunker,
    TiktokenTokenizer,
    Utf8ByteTokenizer,
)
from fastrag.llm.chat import OpenAIChatModel
from fastrag.models import Document
from fastrag.normalization import NormalizerRegistry
from fastrag.packing import PackingConfig
from fastrag.pipeline import IterableSource, SqliteCacheStore
from tests._paths import SHARED
from tests.unit.llm._chat_server import ChatServer, Reply, running_chat_server

PARA = (
    "Cats purr when they are content. They also sleep for most of the day. "
    "Kittens learn to hunt by playing. Rust compiles to native code. "
    "Its borrow checker rejects data races. Cargo builds and tests crates."
)
ALLOWED = [33, 70, 104, 134, 173]
"""The sentence starts of ``PARA``: what the refiner may choose from."""
NOTES = Document("notes", "tests", f"# Notes\n\n{PARA}\n", {"content_format": "markdown"})
BUDGET: dict[str, Any] = {"target_tokens": 140, "max_tokens": 150, "min_preferred_tokens": 0}
"""With UTF-8 bytes as tokens, the heuristic cuts ``NOTES`` before "Its" (the last
sentence end in reach); "Rust" is also in the second half of that reach."""


def _choose(word: str) -> Any:
    """A server answer: the allowed offsets where a sentence starting with ``word`` begins."""

    def answer(payload: dict[str, Any]) -> Reply:
        data = json.loads(payload["messages"][-1]["content"])
        text, allowed = data["text"], data["allowed"]
        chosen = [offset for offset in allowed if text[offset:].startswith(word)]
        return Reply(json.dumps({"boundaries": chosen}))

    return answer


@pytest.fixture
def server() -> Iterator[ChatServer]:
    yield from running_chat_server()


def _refiner(server: ChatServer, **settings: Any) -> ChatBoundaryRefiner:
    model = OpenAIChatModel("test-chat", api_key="sk-x", base_url=server.base_url, max_retries=0)
    options: dict[str, Any] = {
        "llm": model,
        "identity": model.identity,
        "allow_external_transmission": True,
        "timeout": 5.0,
    }
    options.update(settings)
    return ChatBoundaryRefiner(**options)


def _chunker(refiner: ChatBoundaryRefiner | None, **options: Any) -> StructureAwareChunker:
    settings: dict[str, Any] = {"tokenizer": Utf8ByteTokenizer(), "cache": False, **BUDGET}
    settings.update(options)
    if refiner is not None:
        settings.update(semantic_mode="llm", semantic_refiner=refiner)
    return StructureAwareChunker(**settings)


async def _run(
    chunker: StructureAwareChunker, *documents: Document
) -> tuple[list[Document], list[ChunkValidation]]:
    reports: list[ChunkValidation] = []
    chunker.diagnostics = reports.append
    chunks = await chunker(IterableSource(list(documents))).run()
    return chunks, reports


def _spans(chunks: list[Document]) -> list[tuple[int, int]]:
    return [(chunk.metadata["char_start"], chunk.metadata["char_end"]) for chunk in chunks]


def _without_identity(chunks: list[Document]) -> list[tuple[str, Mapping[str, Any]]]:
    return [
        (chunk.content, {k: v for k, v in chunk.metadata.items() if k != "engine_identity"})
        for chunk in chunks
    ]


async def test_the_chosen_sentence_start_is_where_the_next_chunk_begins(
    server: ChatServer,
) -> None:
    server.default = _choose("Rust")
    heuristic, _ = await _run(_chunker(None), NOTES)
    refined, (report,) = await _run(_chunker(_refiner(server)), NOTES)
    rust = NOTES.content.index("Rust")
    assert _spans(heuristic) == [(0, 142), (142, 212)]
    assert NOTES.content[142:].startswith(" Its")  # the sentence end, cut before its space
    assert _spans(refined) == [(0, rust), (rust, 212)]
    assert refined[1].content.startswith("Rust compiles")
    (request,) = server.requests
    assert json.loads(request.user_text) == {"text": PARA, "allowed": ALLOWED}
    assert (report.model_calls, report.model_cache_hits, report.model_fallbacks) == (1, 0, ())
    assert report.fallback_chunks == 0 and report.chunk_count == 2
    assert all(count <= BUDGET["max_tokens"] for count in report.token_counts)
    for chunk in refined:  # observations stay out of chunks
        assert not any("model" in key or "fallback" in key for key in chunk.metadata)


async def test_a_choice_outside_the_reach_keeps_the_sentence_cut(server: ChatServer) -> None:
    """ "They" starts too early to fill a chunk: a choice is a preference, not an order."""
    server.default = _choose("They")
    heuristic, _ = await _run(_chunker(None), NOTES)
    refined, (report,) = await _run(_chunker(_refiner(server)), NOTES)
    assert _without_identity(refined) == _without_identity(heuristic)
    assert report.model_calls == 1 and report.model_fallbacks == ()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply("Split before Rust."), "invalid_json"),
        (Reply('{"boundaries": [105]}'), "offset_not_allowed"),
        (Reply('{"boundaries": [104], "why": "topic"}'), "invalid_shape"),
        (Reply(status=500), "provider_error:"),
    ],
)
async def test_an_unusable_answer_gives_exactly_the_heuristic_chunks(
    server: ChatServer, reply: Reply, reason: str
) -> None:
    server.script.append(reply)
    heuristic, _ = await _run(_chunker(None), NOTES)
    refined, (report,) = await _run(_chunker(_refiner(server)), NOTES)
    assert _without_identity(refined) == _without_identity(heuristic)
    assert {chunk.id for chunk in refined}.isdisjoint(chunk.id for chunk in heuristic)
    assert report.model_calls == 1 and len(server.requests) == 1
    (fallback,) = report.model_fallbacks
    assert fallback.startswith(reason)
    assert report.fallback_chunks == 2  # both chunks hold part of the paragraph


CODE = "```python\n" + "".join(f"x{n} = 1  # Sentence one. Sentence two.\n" for n in range(8))
MIXED = Document(
    "mixed",
    "tests",
    "# Mixed\n\n"
    + CODE
    + "```\n\n"
    + "".join(f"- Item {n} is long. It has two sentences here.\n" for n in range(6))
    + "\n| a | b |\n|---|---|\n"
    + "".join(f"| Row {n}. Cell. | More text. Here. |\n" for n in range(8))
    + "\n> "
    + PARA
    + "\n\nA short paragraph. It fits.\n\n"
    + PARA
    + "\n",
    {"content_format": "markdown"},
)


async def test_only_plain_paragraphs_over_the_target_are_sent(server: ChatServer) -> None:
    server.default = _choose("Rust")
    chunks, (report,) = await _run(_chunker(_refiner(server)), MIXED)
    (request,) = server.requests
    assert json.loads(request.user_text)["text"] == PARA  # the last block, not the quote
    assert report.model_calls == 1 and report.classification == "chunked"
    assert any(chunk.content.startswith("Rust compiles") for chunk in chunks)


async def test_html_and_short_paragraphs_are_never_sent(server: ChatServer) -> None:
    html = Document("page", "tests", f"<h1>Notes</h1><p>{PARA}</p>", {"content_format": "html"})
    short = Document(
        "short", "tests", "# Notes\n\nOne sentence. Two.\n", {"content_format": "markdown"}
    )
    chunks, reports = await _run(_chunker(_refiner(server)), html, short)
    assert server.requests == [] and len(chunks) >= 2
    assert [report.model_calls for report in reports] == [0, 0]


async def test_rst_paragraphs_are_refined(server: ChatServer) -> None:
    server.default = _choose("Rust")
    rst = Document("rst", "tests", f"Notes\n=====\n\n{PARA}\n", {"content_format": "rst"})
    chunks, _ = await _run(_chunker(_refiner(server)), rst)
    (request,) = server.requests
    assert json.loads(request.user_text) == {"text": PARA, "allowed": ALLOWED}
    assert chunks[-1].content.startswith("Rust compiles")


async def test_budgets_hold_on_a_real_document_whatever_the_model_chooses(
    server: ChatServer,
) -> None:
    """Every other sentence start proposed: cuts move, budgets and coverage validate."""
    server.default = lambda payload: Reply(
        json.dumps({"boundaries": json.loads(payload["messages"][-1]["content"])["allowed"][::2]})
    )
    path = SHARED / "corpus" / "web" / "wiki.md"
    wiki = Document(
        "wiki", "tests", path.read_text(encoding="utf-8"), {"content_format": "markdown"}
    )
    options = {"tokenizer": TiktokenTokenizer("cl100k_base"), "target_tokens": 60, "max_tokens": 90}
    heuristic, _ = await _run(_chunker(None, **options), wiki)
    refined, (report,) = await _run(_chunker(_refiner(server, concurrency=4), **options), wiki)
    assert report.model_calls == len(server.requests) > 0
    assert report.model_fallbacks == () and max(report.token_counts) <= 90
    assert _spans(refined) != _spans(heuristic)
    assert (
        "".join(chunk.content for chunk in refined).split()
        == "".join(chunk.content for chunk in heuristic).split()
    )


async def test_calls_and_cache_hits_are_reported_per_document(server: ChatServer) -> None:
    server.default = _choose("Rust")
    twice = Document("twice", "tests", f"# A\n\n{PARA}\n\n# B\n\n{PARA}\n", NOTES.metadata)
    refiner = _refiner(server, cache_size=4)
    chunker = _chunker(refiner)
    first, (report,) = await _run(chunker, twice)
    assert (report.model_calls, report.model_cache_hits) in {(2, 0), (1, 1)}
    again, (replay,) = await _run(chunker, twice)
    assert (replay.model_calls, replay.model_cache_hits, replay.model_fallbacks) == (0, 2, ())
    assert [chunk.id for chunk in again] == [chunk.id for chunk in first]
    assert refiner.cache_entries == 1


def test_the_synchronous_api_refuses_llm_mode(server: ChatServer) -> None:
    chunker = _chunker(_refiner(server))
    with pytest.raises(ConfigurationError, match="asplit"):
        list(chunker.split(NOTES))
    normalized = NormalizerRegistry().normalize(NOTES)
    with pytest.raises(ConfigurationError, match="asplit_normalized"):
        list(chunker.split_normalized(normalized))
    assert server.requests == []


async def test_the_async_tree_api_refines_too(server: ChatServer) -> None:
    server.default = _choose("Rust")
    chunker = _chunker(_refiner(server))
    normalized = NormalizerRegistry().normalize(NOTES)
    pieces = [piece async for piece in chunker.asplit_normalized(normalized)]
    assert [piece[0][:4] for piece in pieces] == ["# No", "Rust"]


async def test_cancellation_propagates(server: ChatServer) -> None:
    server.default = lambda payload: Reply(sleep=10)
    chunker = _chunker(_refiner(server))
    task = asyncio.ensure_future(chunker(IterableSource([NOTES])).run())
    await asyncio.to_thread(server.arrived.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_identity_separates_modes_and_refiners(server: ChatServer) -> None:
    heuristic = _chunker(None)
    assert "semantic_refiner" not in heuristic.config()["packing"]
    refiner = _refiner(server)
    first = _chunker(refiner)
    assert first.semantic_refiner is refiner
    assert first.config()["packing"]["semantic_refiner"]["identity"] == refiner.identity
    other = _chunker(_refiner(server, identity="other-model"))
    hashes = {heuristic.config_hash, first.config_hash, other.config_hash}
    assert len(hashes) == 3
    assert "sk-x" not in json.dumps(first.config())


def test_construction_errors_name_the_fix(server: ChatServer) -> None:
    with pytest.raises(ConfigurationError, match="needs a semantic_refiner"):
        StructureAwareChunker(semantic_mode="llm")
    with pytest.raises(ConfigurationError, match="used only by semantic_mode='llm'"):
        StructureAwareChunker(semantic_refiner=_refiner(server))
    with pytest.raises(ConfigurationError, match="must offer config"):
        PackingConfig(semantic_mode="llm", semantic_refiner=object())
    with pytest.raises(ConfigurationError, match="allow_external_transmission=False"):
        _chunker(_refiner(server, allow_external_transmission=False))
    assert server.requests == []


@pytest.mark.parametrize(
    ("first", "cached"),
    [
        (Reply(status=500), False),  # transient: the next run asks again
        (Reply("Split before Rust."), True),  # the model's answer: replayed like any output
    ],
)
async def test_only_outputs_a_retry_cannot_change_enter_the_step_cache(
    server: ChatServer, tmp_path: Path, first: Reply, cached: bool
) -> None:
    server.script.append(first)
    server.default = _choose("Rust")
    store = SqliteCacheStore(tmp_path / "cache.sqlite")
    fallback, (report,) = await _run(_chunker(_refiner(server), cache=store), NOTES)
    assert len(report.model_fallbacks) == 1 and len(server.requests) == 1
    again, (second,) = await _run(_chunker(_refiner(server), cache=store), NOTES)
    rust = NOTES.content.index("Rust")
    if cached:
        assert len(server.requests) == 1 and second.model_calls == 0
        assert [chunk.id for chunk in again] == [chunk.id for chunk in fallback]
    else:
        assert len(server.requests) == 2 and second.model_fallbacks == ()
        assert _spans(again) == [(0, rust), (rust, 212)]
        replayed, (third,) = await _run(_chunker(_refiner(server), cache=store), NOTES)
        assert len(server.requests) == 2 and third.model_calls == 0
        assert [chunk.id for chunk in replayed] == [chunk.id for chunk in again]
