"""The retry rule both OpenAI-compatible clients share: wait how long, or give up why.

Waits are computed by hand here from the documented schedule (``backoff * 2 ** (n - 1)``
capped at ``max_backoff``, widened by at most ``jitter`` with a fraction from a
length-prefixed sha256 of the URL and the retry number), not by calling ``Policy``.
The last two tests run the same rule through both clients against a real local server.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from email.utils import formatdate

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.llm import EmbeddingError, OpenAIChatModel, OpenAIEmbeddingClient, TransientChatError
from fastrag.llm._http import retry_after_seconds
from fastrag.llm._retry import GiveUp, RetryRule, is_retryable_status, retry_rule
from tests.unit.llm._chat_server import ChatServer, Reply, running_chat_server
from tests.unit.llm._openai_server import Action, OpenAIServer, running_server

URL = "http://127.0.0.1:9/v1/embeddings"
NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z, so HTTP-date arithmetic is exact


def _rule(
    *, retries: int = 3, backoff: float = 0.5, max_backoff: float = 8.0, jitter: float = 0.0
) -> RetryRule:
    return retry_rule(
        "TestClient",
        key=URL,
        max_retries=retries,
        backoff=backoff,
        max_backoff=max_backoff,
        max_retry_after=20.0,
        jitter=jitter,
    )


def _fraction(key: str, retry: int) -> float:
    """The documented jitter fraction, from hashlib directly."""
    digest = hashlib.sha256()
    for part in (key, str(retry)):
        encoded = part.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return int(digest.hexdigest()[:8], 16) / 0x1_0000_0000


def test_backoff_doubles_up_to_max_backoff_then_gives_up() -> None:
    rule = _rule(retries=6, backoff=0.5, max_backoff=3.0)
    waits = [rule.decide(n, retryable=True, retry_after=None) for n in range(1, 7)]
    assert waits == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    assert rule.decide(7, retryable=True, retry_after=None) == GiveUp(
        "out_of_attempts", 7, max_retry_after=20.0
    )


def test_client_jitter_widens_each_wait_by_at_most_a_tenth_reproducibly() -> None:
    rule = _rule(jitter=0.1)  # what both clients use
    for retry, base in ((1, 0.5), (2, 1.0), (3, 2.0)):
        wait = rule.decide(retry, retryable=True, retry_after=None)
        assert wait == pytest.approx(base * (1.0 + 0.1 * _fraction(URL, retry)), abs=1e-12)
        assert isinstance(wait, float) and base <= wait < base * 1.1
        assert rule.decide(retry, retryable=True, retry_after=None) == wait


def test_zero_retries_gives_up_after_the_first_attempt() -> None:
    decision = _rule(retries=0).decide(1, retryable=True, retry_after=None)
    assert decision == GiveUp("out_of_attempts", 1, 20.0)
    assert isinstance(decision, GiveUp) and decision.suffix == " (1 attempt)"


def test_a_refusal_gives_up_at_once_whatever_is_left() -> None:
    decision = _rule(retries=5).decide(1, retryable=False, retry_after=None)
    assert decision == GiveUp("refused", 1, 20.0)
    assert isinstance(decision, GiveUp) and decision.attempts == "1 attempt"


def test_a_server_asked_wait_replaces_the_backoff_up_to_max_retry_after() -> None:
    rule = _rule()
    assert rule.decide(1, retryable=True, retry_after=0.25) == 0.25
    assert rule.decide(3, retryable=True, retry_after=20.0) == 20.0  # the cap is inclusive
    assert rule.decide(1, retryable=True, retry_after=0.0) == 0.0


@pytest.mark.parametrize(
    ("attempt", "retryable"), [(1, True), (4, True), (2, False)], ids=["first", "last", "refused"]
)
def test_a_longer_asked_wait_gives_up_before_anything_else(attempt: int, retryable: bool) -> None:
    decision = _rule(retries=3).decide(attempt, retryable=retryable, retry_after=20.5)
    assert decision == GiveUp("retry_after_too_long", attempt, 20.0, 20.5)
    assert isinstance(decision, GiveUp)
    assert decision.suffix == (
        f"; the server asked to retry after 20.5 s, longer than max_retry_after=20 s "
        f"({decision.attempts})"
    )


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "Fri, 15 Jan 2027 08:00:05 GMT"}, 5.0),
        ({"retry-after": "Fri, 15 Jan 2027 07:59:00 GMT"}, 0.0),  # already past: no wait
        ({"retry-after": "whenever"}, 1.0),  # garbage: the backoff of retry 2
        ({"retry-after": "-3"}, 1.0),
        ({"retry-after": "inf"}, 1.0),
        ({"retry-after": "nan"}, 1.0),
        ({}, 1.0),
        ({"retry-after": "Fri, 15 Jan 2027 08:00:30 GMT"}, "retry_after_too_long"),
        ({"retry-after": "1e9"}, "retry_after_too_long"),
    ],
)
def test_retry_after_headers_to_decisions(headers: dict[str, str], expected: object) -> None:
    lowered = {name.lower(): value for name, value in headers.items()}  # as httpx looks up
    asked = retry_after_seconds(lowered, now=NOW)
    decision = _rule().decide(2, retryable=True, retry_after=asked)
    if isinstance(decision, GiveUp):
        assert decision.reason == expected
    else:
        assert decision == expected


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (501, True),
        (503, True),
        (599, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (413, False),
        (422, False),
    ],
)
def test_which_statuses_are_worth_retrying(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"max_retry_after": -1.0}, "max_retry_after must be a finite number of seconds >= 0"),
        ({"max_retries": -1}, "TestClient retry settings: Policy 'retries' must be an int >= 0"),
        ({"backoff": float("nan")}, "TestClient retry settings: Policy 'backoff' must be"),
        ({"max_retries": True}, "TestClient retry settings: Policy 'retries'"),
    ],
)
def test_bad_settings_name_the_client_and_the_field(
    settings: dict[str, object], expected: str
) -> None:
    options: dict[str, object] = {
        "key": URL,
        "max_retries": 2,
        "backoff": 0.5,
        "max_backoff": 8.0,
        "max_retry_after": 20.0,
    }
    options.update(settings)
    with pytest.raises(ConfigurationError, match=expected.replace("(", r"\(")):
        retry_rule("TestClient", **options)  # type: ignore[arg-type]


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    yield from running_chat_server()


@pytest.fixture
def embedding_server() -> Iterator[OpenAIServer]:
    yield from running_server()


async def test_both_clients_give_up_at_once_on_a_far_http_date(
    chat_server: ChatServer, embedding_server: OpenAIServer
) -> None:
    later = formatdate(time.time() + 3600, usegmt=True)
    chat_server.script.append(Reply(status=503, headers={"Retry-After": later}))
    embedding_server.script.append(Action(status=503, headers={"Retry-After": later}))
    chat = OpenAIChatModel("m", base_url=chat_server.base_url, max_retry_after=5)
    embedder = OpenAIEmbeddingClient("m", base_url=embedding_server.base_url, max_retry_after=5)
    sentence = r"HTTP 503 .*; the server asked to retry after 3[56]\d\d(\.\d+)? s, longer than "
    sentence += r"max_retry_after=5 s \(1 attempt\)"
    with pytest.raises(TransientChatError, match=sentence + "$"):
        await chat.complete([{"role": "user", "content": "x"}])
    with pytest.raises(EmbeddingError, match=sentence + "; slow down"):
        await embedder.embed(["x"])
    assert (len(chat_server.requests), len(embedding_server.requests)) == (1, 1)


async def test_both_clients_back_off_past_a_garbage_retry_after(
    chat_server: ChatServer, embedding_server: OpenAIServer
) -> None:
    chat_server.script.append(Reply(status=429, headers={"Retry-After": "soon-ish"}))
    embedding_server.script.append(Action(status=429, headers={"Retry-After": "soon-ish"}))
    chat = OpenAIChatModel("m", base_url=chat_server.base_url, backoff=0.01, max_retries=1)
    embedder = OpenAIEmbeddingClient(
        "m", base_url=embedding_server.base_url, backoff=0.01, max_retries=1
    )
    assert await chat.complete([{"role": "user", "content": "x"}]) == "{}"
    assert len(await embedder.embed(["x"])) == 1
    assert (len(chat_server.requests), len(embedding_server.requests)) == (2, 2)
