"""``OpenAIEmbeddingClient`` against a real HTTP server on 127.0.0.1 (started per test)."""

from __future__ import annotations

import logging
import pickle
import socket
from collections.abc import Iterator

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.llm import (
    EmbeddingError,
    EmbeddingTimeoutError,
    InputTooLongError,
    OpenAIEmbeddingClient,
    Secret,
)
from tests.unit.llm._openai_server import (
    DIMENSION,
    Action,
    OpenAIServer,
    running_server,
    vector_for,
)

KEY = "sk-test-4f1c9e0d-never-show-me"
TEXTS = ["alpha", "beta gamma", "δέλτα"]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from running_server()


def _client(server: OpenAIServer, **settings: object) -> OpenAIEmbeddingClient:
    options: dict[str, object] = {"api_key": KEY, "backoff": 0.01, "max_retries": 2}
    options.update(settings)
    return OpenAIEmbeddingClient("test-embedder", base_url=server.base_url, **options)  # type: ignore[arg-type]


async def test_embeds_in_order_with_the_openai_request_shape(server: OpenAIServer) -> None:
    client = _client(server, dimensions=DIMENSION)
    vectors = await client.embed(TEXTS)
    assert vectors == [vector_for(text) for text in TEXTS]
    (request,) = server.requests
    assert request.path == "/v1/embeddings"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.payload == {
        "model": "test-embedder",
        "input": TEXTS,
        "encoding_format": "float",
        "dimensions": DIMENSION,
    }
    assert client.dimension == DIMENSION


async def test_dimension_is_learned_from_the_first_answer(server: OpenAIServer) -> None:
    client = _client(server)
    assert client.dimension is None
    await client.embed(["x"])
    assert client.dimension == DIMENSION


async def test_429_then_200_is_retried(server: OpenAIServer) -> None:
    server.script.append(Action(status=429, headers={"Retry-After": "0"}))
    vectors = await _client(server).embed(TEXTS)
    assert vectors == [vector_for(text) for text in TEXTS]
    assert server.batches() == [3, 3]


async def test_500_is_retried_then_fails_naming_the_endpoint(server: OpenAIServer) -> None:
    server.script.extend(Action(status=500) for _ in range(3))
    client = _client(server, max_retries=2)
    with pytest.raises(EmbeddingError) as caught:
        await client.embed(TEXTS)
    message = str(caught.value)
    assert f"POST {server.base_url}/embeddings answered HTTP 500" in message
    assert "3 attempts" in message
    assert "max_retries" in message
    assert len(server.requests) == 3


async def test_a_client_error_is_not_retried_and_its_text_is_not_quoted(
    server: OpenAIServer,
) -> None:
    echo = {"error": {"message": f"bad input 'alpha' with key {KEY}", "type": "invalid_request"}}
    server.script.append(Action(status=400, body=echo))
    with pytest.raises(EmbeddingError) as caught:
        await _client(server).embed(TEXTS)
    message = str(caught.value)
    assert "HTTP 400 (type=invalid_request)" in message
    assert "alpha" not in message
    assert KEY not in message
    assert len(server.requests) == 1


async def test_a_long_retry_after_fails_at_once(server: OpenAIServer) -> None:
    server.script.append(Action(status=429, headers={"Retry-After": "3600"}))
    with pytest.raises(EmbeddingError, match="retry after 3600 s, longer than max_retry_after"):
        await _client(server, max_retry_after=5.0).embed(TEXTS)
    assert len(server.requests) == 1


async def test_a_timeout_is_an_error_naming_the_endpoint_not_a_hang(server: OpenAIServer) -> None:
    server.script.append(Action(sleep=3.0))
    client = _client(server, timeout=0.5, max_retries=0)
    with pytest.raises(EmbeddingTimeoutError) as caught:
        await client.embed(TEXTS)
    message = str(caught.value)
    assert f"POST {server.base_url}/embeddings got no complete answer within 0.5 s" in message
    assert KEY not in message


async def test_connection_refused_names_the_endpoint(server: OpenAIServer) -> None:
    port = _dead_port()
    client = OpenAIEmbeddingClient(
        "m", api_key=KEY, base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, backoff=0.01
    )
    with pytest.raises(EmbeddingError) as caught:
        await client.embed(["x"])
    message = str(caught.value)
    assert f"POST http://127.0.0.1:{port}/v1/embeddings failed: ConnectError (2 attempts)" in (
        message
    )
    assert KEY not in message


async def test_trust_env_false_ignores_proxy_variables(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = f"http://127.0.0.1:{_dead_port()}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, dead)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert await _client(server).embed(["x"]) == [vector_for("x")]
    assert len(server.requests) == 1
    # The same variables do apply when the environment is trusted: the request then goes
    # to the dead proxy and never reaches the server.
    with pytest.raises(EmbeddingError, match="failed: ConnectError"):
        await _client(server, trust_env=True, max_retries=0).embed(["x"])
    assert len(server.requests) == 1


async def test_the_key_never_shows(server: OpenAIServer, caplog: pytest.LogCaptureFixture) -> None:
    client = _client(server)
    caplog.set_level(logging.DEBUG)
    await client.embed(["x"])
    server.script.append(Action(status=401, body={"error": {"code": KEY}}))
    with pytest.raises(EmbeddingError) as caught:
        await client.embed(["x"])
    assert "check api_key" in str(caught.value)
    shown = [client.identity, repr(client), str(caught.value), caplog.text]
    assert "HTTP Request: POST" in caplog.text  # httpx did log the requests
    assert all(KEY not in text for text in shown)
    assert "***" in str(caught.value)  # the server echoed it in a code field: scrubbed
    assert repr(Secret(KEY)) == "Secret('***')" and str(Secret(KEY)) == "***"
    # Pickling keeps the key (a Dask worker must authenticate) behind the same mask.
    clone = pickle.loads(pickle.dumps(client))
    assert await clone.embed(["y"]) == [vector_for("y")]
    assert server.requests[-1].headers["Authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"data": [{"index": 0, "embedding": [0.1, 0.2]}]}, "returned 1 embeddings for 3 texts"),
        ({"data": "nope"}, "without a 'data' list"),
        (b"<html>", "not JSON"),
        (
            {"data": [{"index": i, "embedding": [0.0]} for i in (0, 0, 2)]},
            "duplicate or out-of-range 'index'",
        ),
        (
            b'{"data": [{"index": 0, "embedding": [NaN]}, {"index": 1, "embedding": [1.0]},'
            b' {"index": 2, "embedding": [1.0]}]}',
            "non-finite value",
        ),
        (
            {"data": [{"index": i, "embedding": [0.0] * (i + 1)} for i in range(3)]},
            "lengths [1, 2, 3]",
        ),
    ],
)
async def test_malformed_answers_are_refused(
    server: OpenAIServer, body: object, expected: str
) -> None:
    server.script.append(Action(body=body))
    with pytest.raises(EmbeddingError, match=expected.replace("[", r"\[").replace("(", r"\(")):
        await _client(server).embed(TEXTS)
    assert len(server.requests) == 1


async def test_answers_are_put_back_in_index_order(server: OpenAIServer) -> None:
    shuffled = [{"index": i, "embedding": list(vector_for(TEXTS[i]))} for i in (2, 0, 1)]
    server.script.append(Action(body={"data": shuffled}))
    assert await _client(server).embed(TEXTS) == [vector_for(text) for text in TEXTS]


async def test_known_model_knows_its_dimension_limit_and_tokenizer(server: OpenAIServer) -> None:
    client = OpenAIEmbeddingClient("text-embedding-3-small", base_url=server.base_url)
    assert (client.dimension, client.max_input_tokens) == (1536, 8191)
    tokenizer = client.tokenizer
    assert tokenizer is not None and tokenizer.identity == "cl100k_base"
    assert tokenizer.count("hello world") == 2


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("https://user:hunter2@example.com/v1", "user:password@"),
        ("https://example.com/v1?key=hunter2", "?query"),
        ("ftp://example.com/v1", "http:// or https://"),
    ],
)
def test_base_urls_that_could_leak_are_refused_without_quoting(
    base_url: str, expected: str
) -> None:
    with pytest.raises(ConfigurationError, match=expected.replace("?", r"\?")) as caught:
        OpenAIEmbeddingClient("m", base_url=base_url)
    assert "hunter2" not in str(caught.value)


def test_identity_names_model_endpoint_and_dimensions_only() -> None:
    client = OpenAIEmbeddingClient(
        "text-embedding-3-large",
        api_key=KEY,
        base_url="https://api.example.com/v1/",
        dimensions=256,
    )
    assert client.identity == (
        "openai-compatible:text-embedding-3-large@https://api.example.com/v1/embeddings"
        ":dimensions=256"
    )
    assert client.dimension == 256


def test_max_input_tokens_without_a_tokenizer_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="needs a tokenizer"):
        OpenAIEmbeddingClient("my-model", max_input_tokens=512)


def test_input_too_long_error_names_both_numbers() -> None:
    error = InputTooLongError("chunk 'c1'", 300, 256, "model-x", "tok-y")
    assert (error.tokens, error.limit) == (300, 256)
    assert str(error).startswith(
        "chunk 'c1' is 300 tokens under the model's tokenizer (tok-y), over the 256-token "
        "input limit of model-x"
    )


def _dead_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port
