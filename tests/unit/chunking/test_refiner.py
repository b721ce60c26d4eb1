"""``ChatBoundaryRefiner`` over ``OpenAIChatModel`` and a real chat server on 127.0.0.1.

Each scripted answer must end as the seed says: validated boundaries, a heuristic
fallback with the reason recorded, or propagated cancellation.
"""

from __future__ import annotations

import asyncio
import json
import pickle
from collections.abc import Iterator

import pytest

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking.refiner import ChatBoundaryRefiner, RefinementResult
from fastrag.llm.chat import OpenAIChatModel
from tests.unit.llm._chat_server import ChatServer, Reply, running_chat_server

KEY = "sk-refiner-0b9e-never-show-me"
TEXT = (
    "Cats purr when they are content. They also sleep for most of the day. "
    "Rust compiles to native code. Its borrow checker rejects data races."
)
ALLOWED = (33, 70, 100)
"""The sentence starts of ``TEXT`` (what the prose splitter would offer)."""


def test_allowed_offsets_are_the_sentence_starts() -> None:
    assert [TEXT[offset : offset + 4] for offset in ALLOWED] == ["They", "Rust", "Its "]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    yield from running_chat_server()


def _refiner(server: ChatServer, **settings: object) -> ChatBoundaryRefiner:
    model = OpenAIChatModel(
        "test-chat", api_key=KEY, base_url=server.base_url, max_retries=0, timeout=5
    )
    options: dict[str, object] = {
        "llm": model,
        "identity": model.identity,
        "allow_external_transmission": True,
        "backoff": 0.01,
    }
    options.update(settings)
    return ChatBoundaryRefiner(**options)  # type: ignore[arg-type]


async def _refine(refiner: ChatBoundaryRefiner, text: str = TEXT) -> RefinementResult:
    return await refiner.refine(node_id="n1", text=text, allowed=ALLOWED)


async def test_valid_proposal_is_accepted_and_text_sent_verbatim(server: ChatServer) -> None:
    server.script.append(Reply('{"boundaries": [70]}'))
    result = await _refine(_refiner(server))
    assert result == RefinementResult(boundaries=(70,), calls=1)
    (request,) = server.requests
    assert json.loads(request.user_text) == {"text": TEXT, "allowed": list(ALLOWED)}


async def test_empty_proposal_is_valid(server: ChatServer) -> None:
    server.script.append(Reply(' {"boundaries": []}\n'))
    assert await _refine(_refiner(server)) == RefinementResult(calls=1)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("Sure! Split at 70.", "invalid_json"),
        ('```json\n{"boundaries": [70]}\n```', "invalid_json"),
        ('{"boundaries": [69]}', "offset_not_allowed"),
        ('{"boundaries": [0]}', "offset_not_allowed"),
        ('{"boundaries": [100, 70]}', "not_increasing"),
        ('{"boundaries": [70, 70]}', "not_increasing"),
        ('{"boundaries": [70.0]}', "not_an_offset"),
        ('{"boundaries": [true]}', "not_an_offset"),
        ('{"boundaries": ["70"]}', "not_an_offset"),
        ('{"boundaries": [70], "why": "topic"}', "invalid_shape"),
        ('{"boundaries": [70], "boundaries": [33]}', "invalid_json"),
        ('{"boundaries": [NaN]}', "invalid_json"),
        ("[70]", "invalid_shape"),
        ('{"boundaries": 70}', "invalid_shape"),
    ],
)
async def test_invalid_answers_fall_back_with_the_reason(
    server: ChatServer, answer: str, reason: str
) -> None:
    server.script.append(Reply(answer))
    assert await _refine(_refiner(server)) == RefinementResult(calls=1, fallback=reason)


async def test_response_over_max_response_chars_falls_back(server: ChatServer) -> None:
    answer = '{"boundaries": [70]}' + " " * 100
    server.script.append(Reply(answer))
    result = await _refine(_refiner(server, max_response_chars=len(answer) - 1))
    assert result == RefinementResult(calls=1, fallback="response_too_long")


async def test_429_then_success_is_retried(server: ChatServer) -> None:
    server.script.extend([Reply(status=429), Reply('{"boundaries": [33, 100]}')])
    result = await _refine(_refiner(server, retries=1))
    assert result == RefinementResult(boundaries=(33, 100), calls=2)


async def test_500_without_retries_falls_back(server: ChatServer) -> None:
    server.script.append(Reply(status=500))
    result = await _refine(_refiner(server))
    assert result == RefinementResult(calls=1, fallback="provider_error:TransientChatError")


async def test_permanent_provider_error_is_not_retried(server: ChatServer) -> None:
    server.script.extend([Reply(status=401), Reply('{"boundaries": [70]}')])
    result = await _refine(_refiner(server, retries=3))
    assert result == RefinementResult(calls=1, fallback="provider_error:ChatModelError")
    assert len(server.requests) == 1


async def test_timeout_falls_back(server: ChatServer) -> None:
    server.script.append(Reply('{"boundaries": [70]}', sleep=2.0))
    result = await _refine(_refiner(server, timeout=0.3))
    assert result == RefinementResult(calls=1, fallback="timeout")


async def test_cancellation_propagates(server: ChatServer) -> None:
    server.script.append(Reply('{"boundaries": [70]}', sleep=5.0))
    refiner = _refiner(server)
    task = asyncio.create_task(_refine(refiner))
    assert await asyncio.to_thread(server.arrived.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert refiner.cache_entries == 0


async def test_cache_hit_on_repeat_and_bounded_lru(server: ChatServer) -> None:
    server.default = lambda payload: Reply('{"boundaries": [70]}')
    refiner = _refiner(server, cache_size=2)
    assert (await _refine(refiner)).calls == 1
    assert await _refine(refiner) == RefinementResult(boundaries=(70,), cache_hit=True)
    assert len(server.requests) == 1
    other, third = TEXT + " More.", TEXT + " Even more."
    await _refine(refiner, other)
    await _refine(refiner, third)  # evicts TEXT, the least recently used
    assert refiner.cache_entries == 2
    assert (await _refine(refiner)).calls == 1
    assert len(server.requests) == 4


async def test_fallbacks_are_not_cached(server: ChatServer) -> None:
    server.script.extend([Reply("nope"), Reply('{"boundaries": [100]}')])
    refiner = _refiner(server, cache_size=4)
    assert (await _refine(refiner)).fallback == "invalid_json"
    assert refiner.cache_entries == 0
    assert (await _refine(refiner)).boundaries == (100,)


async def test_refuses_without_permission_and_sends_nothing(server: ChatServer) -> None:
    refiner = _refiner(server, allow_external_transmission=False)
    with pytest.raises(ConfigurationError, match="allow_external_transmission=True"):
        await _refine(refiner)
    assert server.requests == []


async def test_input_over_max_input_chars_is_not_sent(server: ChatServer) -> None:
    result = await _refine(_refiner(server, max_input_chars=len(TEXT) - 1))
    assert result == RefinementResult(fallback="input_too_long")
    assert server.requests == []


async def test_nothing_to_choose_sends_nothing(server: ChatServer) -> None:
    result = await _refiner(server).refine(node_id="n", text=TEXT, allowed=[])
    assert result == RefinementResult()
    assert server.requests == []


async def test_offsets_outside_the_text_are_a_caller_error(server: ChatServer) -> None:
    with pytest.raises(ChunkingError, match="strictly inside"):
        await _refiner(server).refine(node_id="n", text=TEXT, allowed=[len(TEXT)])


async def test_concurrency_bounds_calls_in_flight(server: ChatServer) -> None:
    server.default = lambda payload: Reply('{"boundaries": []}', sleep=0.15)
    refiner = _refiner(server, concurrency=2)
    texts = [f"{TEXT} Number {index}." for index in range(5)]
    await asyncio.gather(*(_refine(refiner, text) for text in texts))
    assert len(server.requests) == 5
    assert server.max_in_flight == 2


def test_config_is_nonsecret_and_pickles_without_state() -> None:
    model = OpenAIChatModel("m", api_key=KEY, base_url="http://127.0.0.1:9/v1")
    refiner = ChatBoundaryRefiner(llm=model, identity=model.identity, cache_size=3)
    config = refiner.config()
    assert config["identity"] == model.identity
    assert "concurrency" not in config and "cache_size" not in config
    assert KEY not in json.dumps(config) + repr(refiner)
    copy = pickle.loads(pickle.dumps(refiner))
    assert copy.config() == config and copy.cache_entries == 0


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"identity": ""}, "identity"),
        ({"timeout": 0}, "timeout"),
        ({"retries": -1}, "retries"),
        ({"concurrency": 0}, "concurrency"),
        ({"cache_size": -1}, "cache_size"),
        ({"allow_external_transmission": "yes"}, "allow_external_transmission"),
        ({"llm": object()}, "ChatModel"),
    ],
)
def test_settings_are_checked(settings: dict[str, object], match: str) -> None:
    model = OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1")
    options: dict[str, object] = {"llm": model, "identity": "m"}
    options.update(settings)
    with pytest.raises(ConfigurationError, match=match):
        ChatBoundaryRefiner(**options)  # type: ignore[arg-type]
