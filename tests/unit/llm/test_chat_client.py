"""``OpenAIChatModel`` against a real HTTP server on 127.0.0.1 (started per test)."""

from __future__ import annotations

import asyncio
import logging
import pickle
from collections.abc import Iterator

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.llm.chat import (
    ChatModel,
    ChatModelError,
    ChatTimeoutError,
    OpenAIChatModel,
    TransientChatError,
)
from tests.unit.llm._chat_server import ChatServer, Reply, running_chat_server

KEY = "sk-test-chat-7d2a-never-show-me"
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "héllo"}]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    yield from running_chat_server()


def _model(server: ChatServer, **settings: object) -> OpenAIChatModel:
    options: dict[str, object] = {"api_key": KEY, "backoff": 0.01, "max_retries": 2}
    options.update(settings)
    return OpenAIChatModel("test-chat", base_url=server.base_url, **options)  # type: ignore[arg-type]


async def test_sends_the_openai_request_and_returns_the_message(server: ChatServer) -> None:
    server.script.append(Reply(content="bonjour"))
    model = _model(server, max_output_tokens=77, temperature=0)
    assert isinstance(model, ChatModel)
    assert await model.complete(MESSAGES) == "bonjour"
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.payload == {
        "model": "test-chat",
        "messages": MESSAGES,
        "temperature": 0.0,
        "max_tokens": 77,
        "stream": False,
    }


async def test_output_limit_field_for_reasoning_models(server: ChatServer) -> None:
    model = _model(server, max_output_tokens=9, token_limit_field="max_completion_tokens")
    await model.complete(MESSAGES)
    assert server.requests[0].payload["max_completion_tokens"] == 9
    assert "max_tokens" not in server.requests[0].payload


async def test_429_then_success_is_retried_with_retry_after(server: ChatServer) -> None:
    server.script.extend([Reply(status=429, headers={"retry-after-ms": "10"}), Reply("ok")])
    assert await _model(server).complete(MESSAGES) == "ok"
    assert len(server.requests) == 2


async def test_500_exhausts_retries_as_a_transient_error(server: ChatServer) -> None:
    server.script.extend([Reply(status=500)] * 3)
    with pytest.raises(TransientChatError, match=r"HTTP 500 .*3 attempts.*max_retries"):
        await _model(server, max_retries=2).complete(MESSAGES)
    assert len(server.requests) == 3


async def test_401_is_permanent_and_not_retried(server: ChatServer) -> None:
    server.script.append(Reply(status=401))
    with pytest.raises(ChatModelError, match="check api_key") as caught:
        await _model(server).complete(MESSAGES)
    assert not caught.value.transient
    assert len(server.requests) == 1


async def test_timeout_is_a_transient_timeout_error(server: ChatServer) -> None:
    server.script.append(Reply(sleep=2.0))
    with pytest.raises(ChatTimeoutError, match=r"within 0.3 s.*raise timeout="):
        await _model(server, timeout=0.3, max_retries=0).complete(MESSAGES)


async def test_answer_cut_at_the_output_limit_is_refused(server: ChatServer) -> None:
    server.script.append(Reply(content='{"bound', finish_reason="length"))
    with pytest.raises(ChatModelError, match="max_output_tokens=5"):
        await _model(server, max_output_tokens=5).complete(MESSAGES)


async def test_malformed_bodies_are_permanent_errors(server: ChatServer) -> None:
    server.script.extend([Reply(body=b"not json"), Reply(body={"data": []})])
    model = _model(server)
    with pytest.raises(ChatModelError, match="not JSON"):
        await model.complete(MESSAGES)
    with pytest.raises(ChatModelError, match="'choices'"):
        await model.complete(MESSAGES)


async def test_oversized_body_is_refused(server: ChatServer) -> None:
    server.script.append(Reply(content="x" * 5000))
    with pytest.raises(ChatModelError, match="more than 1000 bytes"):
        await _model(server, max_response_bytes=1000).complete(MESSAGES)


async def test_cancellation_propagates_and_stops_waiting(server: ChatServer) -> None:
    server.script.append(Reply(sleep=5.0))
    task = asyncio.create_task(_model(server, timeout=10).complete(MESSAGES))
    assert await asyncio.to_thread(server.arrived.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_key_never_leaks(server: ChatServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    # A hostile server echoing the key back in its error type must not make it visible.
    server.script.extend([Reply(status=400, body={"error": {"type": KEY, "code": "bad"}})])
    model = _model(server)
    with pytest.raises(ChatModelError) as caught:
        await model.complete(MESSAGES)
    shown = " ".join([str(caught.value), repr(model), model.identity, caplog.text])
    assert KEY not in shown
    assert "test-chat" in model.identity and server.base_url in model.identity
    assert pickle.loads(pickle.dumps(model)).identity == model.identity


def test_settings_are_checked_up_front() -> None:
    with pytest.raises(ConfigurationError, match="user:password"):
        OpenAIChatModel("m", base_url="http://u:p@localhost/v1")
    with pytest.raises(ConfigurationError, match="max_output_tokens"):
        OpenAIChatModel("m", max_output_tokens=0)
    with pytest.raises(ConfigurationError, match="timeout"):
        OpenAIChatModel("m", timeout=0)


async def test_bad_messages_are_refused_before_sending(server: ChatServer) -> None:
    with pytest.raises(ConfigurationError, match="messages"):
        await _model(server).complete([{"role": "robot", "content": "x"}])
    assert server.requests == []
