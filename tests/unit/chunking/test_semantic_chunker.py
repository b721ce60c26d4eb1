"""``SemanticChunker`` over ``OpenAIChatModel`` and a real chat server on 127.0.0.1.

The server groups blocks in pairs (``group_starts`` = every even index), so the expected
chunk count follows from what the server received; every chunk must be a verbatim slice
of a real document at its ``start_index``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking.semantic import SemanticChunker
from fastrag.llm.chat import OpenAIChatModel, TransientChatError
from fastrag.models import Document
from tests._paths import CORPUS
from tests.unit.llm._chat_server import ChatServer, Reply, running_chat_server

KEY = "sk-semantic-51aa-never-show-me"
WIKI = (CORPUS / "web" / "wiki.md").read_text(encoding="utf-8")


def _doc(content: str = WIKI, name: str = "wiki") -> Document:
    return Document(name, f"{name}.md", content, {"content_format": "markdown"})


def _pairs(payload: dict[str, Any]) -> Reply:
    blocks = json.loads(payload["messages"][-1]["content"])["blocks"]
    return Reply(json.dumps({"group_starts": list(range(0, len(blocks), 2))}))


def _sent_blocks(server: ChatServer) -> list[list[str]]:
    return [
        [block["text"] for block in json.loads(seen.user_text)["blocks"]]
        for seen in server.requests
    ]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    yield from running_chat_server()


def _chunker(server: ChatServer, **settings: Any) -> SemanticChunker:
    model = OpenAIChatModel(
        "test-chat", api_key=KEY, base_url=server.base_url, max_retries=0, timeout=5
    )
    return SemanticChunker(llm=model, **settings)


async def _pieces(chunker: SemanticChunker, document: Document) -> list[tuple[str, int]]:
    out = []
    async for piece in chunker.asplit(document):
        assert isinstance(piece, tuple)
        out.append((piece[0], piece[1]["start_index"]))
    return out


def _assert_verbatim_cover(content: str, pieces: list[tuple[str, int]]) -> None:
    """Each piece is its source slice; between pieces lies only whitespace."""
    position = 0
    for text, start in pieces:
        assert content[start : start + len(text)] == text
        assert start >= position and not content[position:start].strip()
        position = start + len(text)
    assert not content[position:].strip()


async def test_groups_a_real_document_in_windows_verbatim(server: ChatServer) -> None:
    server.default = _pairs
    pieces = await _pieces(_chunker(server, chunk_size=400, max_input_chars=1500), _doc())
    _assert_verbatim_cover(WIKI, pieces)
    sent = _sent_blocks(server)
    assert len(sent) >= 4  # 4.8k characters in windows of at most 1500
    for blocks in sent:
        assert sum(map(len, blocks)) <= 1500
        assert all(len(block) <= 400 and block in WIKI for block in blocks)
    assert len(pieces) == sum(math.ceil(len(blocks) / 2) for blocks in sent)
    first_pair = "\n\n".join(sent[0][:2])
    assert pieces[0] == (first_pair, WIKI.index(first_pair))


async def test_runs_in_a_pipeline_and_refuses_sync_split(server: ChatServer) -> None:
    server.default = _pairs
    chunker = _chunker(server, chunk_size=400, max_input_chars=1500)
    chunks = await chunker([_doc()]).run()
    assert [chunk.content for chunk in chunks] == [
        text
        for text, _ in await _pieces(_chunker(server, chunk_size=400, max_input_chars=1500), _doc())
    ]
    with pytest.raises(ChunkingError, match="asplit"):
        list(chunker.split(_doc()))


async def test_long_paragraph_is_divided_into_blocks(server: ChatServer) -> None:
    server.default = _pairs
    paragraph = " ".join(f"word{index}" for index in range(400))  # 3089 characters
    pieces = await _pieces(_chunker(server, chunk_size=500, max_input_chars=4000), _doc(paragraph))
    _assert_verbatim_cover(paragraph, pieces)
    (blocks,) = _sent_blocks(server)
    assert len(blocks) == 7 and all(len(block) <= 500 for block in blocks)
    assert " ".join(blocks) == paragraph


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("two groups", "invalid_json"),
        ('{"group_starts": [1, 3]}', "first_group_not_at_0"),
        ('{"group_starts": [0, 99]}', "index_out_of_range"),
        ('{"group_starts": [0, 2, 2]}', "not_increasing"),
        ('{"group_starts": [0], "note": "x"}', "invalid_shape"),
        ('{"group_starts": [0' + ", 1" * 400 + "]}", "response_too_long"),
    ],
)
async def test_invalid_answers_raise(server: ChatServer, answer: str, reason: str) -> None:
    server.script.append(Reply(answer))
    with pytest.raises(ChunkingError, match=reason) as caught:
        await _pieces(_chunker(server), _doc())
    assert "IBM" not in str(caught.value)  # never quotes the document


async def test_permanent_failure_raises_even_with_fallback(server: ChatServer) -> None:
    server.script.append(Reply(status=401))
    chunker = _chunker(server, fallback_on_transient_error=True)
    with pytest.raises(ChunkingError, match="permanently"):
        await _pieces(chunker, _doc())
    assert not chunker.fell_back


async def test_transient_failure_raises_unless_fallback_is_asked(server: ChatServer) -> None:
    server.script.append(Reply(status=503))
    with pytest.raises(TransientChatError):
        await _pieces(_chunker(server), _doc())


async def test_transient_failure_switches_to_local_splitting(server: ChatServer) -> None:
    server.script.append(Reply(status=503))
    chunker = _chunker(
        server, chunk_size=400, max_input_chars=1500, fallback_on_transient_error=True
    )
    pieces = await _pieces(chunker, _doc())
    assert chunker.fell_back
    _assert_verbatim_cover(WIKI, pieces)
    assert all(len(text) <= 400 for text, _ in pieces)
    assert len(server.requests) == 1  # the instance stopped asking after the failure
    await _pieces(chunker, _doc(WIKI, "again"))
    assert len(server.requests) == 1


async def test_timeout_is_transient(server: ChatServer) -> None:
    server.script.append(Reply(sleep=2.0))
    model = OpenAIChatModel("m", base_url=server.base_url, max_retries=0, timeout=0.3)
    chunker = SemanticChunker(llm=model, fallback_on_transient_error=True)
    _assert_verbatim_cover(WIKI, await _pieces(chunker, _doc()))
    assert chunker.fell_back


def test_config_names_the_model_without_credentials() -> None:
    model = OpenAIChatModel("m", api_key=KEY, base_url="http://127.0.0.1:9/v1")
    chunker = SemanticChunker(llm=model, chunk_size=300)
    assert chunker.config()["llm"] == model.identity
    assert chunker.config()["chunk_size"] == 300
    assert KEY not in json.dumps(chunker.config()) + repr(chunker)
    other = SemanticChunker(llm=model, chunk_size=301)
    assert other.config_hash != chunker.config_hash


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"chunk_size": 0}, "chunk_size"),
        ({"chunk_size": 500, "max_input_chars": 400}, "must not exceed max_input_chars"),
        ({"fallback_on_transient_error": 1}, "fallback_on_transient_error"),
        ({"llm": "gpt"}, "ChatModel"),
    ],
)
def test_settings_are_checked(settings: dict[str, Any], match: str) -> None:
    options: dict[str, Any] = {"llm": OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1")}
    options.update(settings)
    with pytest.raises(ConfigurationError, match=match):
        SemanticChunker(**options)
