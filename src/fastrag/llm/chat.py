"""``ChatModel`` and ``OpenAIChatModel``: what model-assisted chunkers ask a chat model.

The protocol is one coroutine, ``complete(messages) -> str``: the chunkers build the
prompt, validate the answer themselves and never trust it. Generation settings (model,
temperature, output-token limit) belong to the model object, not to each call, so a
chunker's identity can name them once (seed: "set the chat provider's output-token limit
too").

``OpenAIChatModel`` speaks ``POST {base_url}/chat/completions`` to OpenAI or any
compatible server (vLLM, Ollama, LocalAI, llama.cpp). Each attempt is bounded as a whole
by ``timeout``; 429/408/409/5xx answers, dropped connections and timeouts are retried
``max_retries`` times with exponential backoff (``Policy.delay_for``, honouring a
``Retry-After`` of at most ``max_retry_after`` seconds: the rule of ``_retry``, shared
with the embeddings client); anything else fails at once.
Failures are ``TransientChatError`` (incl. ``ChatTimeoutError``) or ``ChatModelError``,
so callers can tell "try later" from "fix something" by type.

The key lives in a ``Secret``: it is sent only in the ``Authorization`` header and never
appears in ``identity``, ``repr`` or errors (which are also scrubbed of it, in case a
server echoes it). ``trust_env=False`` ignores proxy variables and ``.netrc``, so a key
meant for one endpoint is never routed through someone else's proxy. A client is opened
per call and closed after it, so the model works from any event loop.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, Protocol, runtime_checkable

from fastrag._checks import finite_number, int_at_least
from fastrag._optional import require
from fastrag.exceptions import ConfigurationError
from fastrag.llm._chat_errors import ChatModelError, ChatTimeoutError, TransientChatError
from fastrag.llm._chat_response import message_text
from fastrag.llm._http import (
    ResponseTooLarge,
    check_transport,
    endpoint_url,
    json_headers,
    read_capped,
    refusal_message,
    retry_after_seconds,
    status_message,
)
from fastrag.llm._retry import GiveUp, is_retryable_status, retry_rule
from fastrag.llm.secret import Secret, as_secret, redact
from fastrag.tokenization._text import scrub_surrogates

__all__ = [
    "ChatMessage",
    "ChatModel",
    "ChatModelError",
    "ChatTimeoutError",
    "OpenAIChatModel",
    "TransientChatError",
]

ChatMessage = Mapping[str, str]
"""One message: ``{"role": "system" | "user" | "assistant", "content": text}``."""

DEFAULT_CHAT_BASE_URL: Final = "https://api.openai.com/v1"
TokenLimitField = Literal["max_tokens", "max_completion_tokens"]
"""The request field that carries the output-token limit (names differ across servers)."""
_MAX_TOKENS: Final[TokenLimitField] = "max_tokens"
_ROLES: Final = frozenset({"system", "user", "assistant", "developer"})


@runtime_checkable
class ChatModel(Protocol):
    """A chat model that answers a conversation with one text message.

    Implementations own their generation settings (including an output-token limit, so
    a runaway answer is bounded where it is generated) and raise ``TransientChatError``
    for failures worth retrying later and ``ChatModelError`` (or any exception) for the
    rest. Model-backed chunkers use an optional nonsecret ``identity`` str attribute,
    when present, to name the model in their configuration.
    """

    async def complete(self, messages: Sequence[ChatMessage]) -> str:
        """The assistant's reply to ``messages``, as plain text."""
        ...


class OpenAIChatModel:
    """Chat through an OpenAI-compatible ``/chat/completions`` endpoint over ``httpx``.

    ``max_output_tokens`` is sent as ``max_tokens`` (or ``max_completion_tokens`` with
    ``token_limit_field`` for OpenAI's reasoning models); an answer cut at that limit is
    a ``ChatModelError``. ``max_response_bytes`` caps the HTTP body read.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | Secret | None = None,
        base_url: str = DEFAULT_CHAT_BASE_URL,
        timeout: float = 30.0,
        max_output_tokens: int = 1024,
        temperature: float = 0.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 20.0,
        trust_env: bool = False,
        verify: bool | ssl.SSLContext = True,
        token_limit_field: TokenLimitField = _MAX_TOKENS,
        max_response_bytes: int = 1 << 20,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError(
                f"model must be the endpoint's model name such as 'gpt-4o-mini' "
                f"(got {type(model).__name__})"
            )
        self._model = model
        self._api_key = as_secret(api_key)
        self._url = endpoint_url(base_url, "/chat/completions")
        self._timeout = finite_number("timeout", timeout, positive=True, unit="seconds")
        self._max_output_tokens = int_at_least("max_output_tokens", max_output_tokens, 1)
        self._temperature = finite_number("temperature", temperature, positive=False)
        self._max_response_bytes = int_at_least("max_response_bytes", max_response_bytes, 1)
        self._retry = retry_rule(
            "OpenAIChatModel",
            key=self._url,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
            max_retry_after=max_retry_after,
        )
        check_transport(trust_env, verify)
        if token_limit_field not in ("max_tokens", "max_completion_tokens"):
            raise ConfigurationError(
                f"token_limit_field must be 'max_tokens' or 'max_completion_tokens' "
                f"(got {token_limit_field!r})"
            )
        self._trust_env = trust_env
        self._verify = verify
        self._token_limit_field = token_limit_field

    @property
    def model(self) -> str:
        """The model name sent to the endpoint."""
        return self._model

    @property
    def url(self) -> str:
        """The full ``/chat/completions`` URL (never carries credentials)."""
        return self._url

    @property
    def max_output_tokens(self) -> int:
        """The output-token limit sent with every request."""
        return self._max_output_tokens

    @property
    def identity(self) -> str:
        """Endpoint, model and every generation setting that changes answers; never the key."""
        return (
            f"openai-compatible-chat:{self._model}@{self._url}"
            f":temperature={self._temperature:g}"
            f":{self._token_limit_field}={self._max_output_tokens}"
        )

    async def complete(self, messages: Sequence[ChatMessage]) -> str:
        """One chat completion (retried per the settings); the first choice's text."""
        body = self._body(messages)
        httpx = require("httpx", extra="embeddings", feature="OpenAIChatModel")
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout),
            trust_env=self._trust_env,
            verify=self._verify,
            follow_redirects=False,
        ) as client:
            attempt = 0
            while True:
                attempt += 1
                outcome = await self._attempt(httpx, client, body)
                if isinstance(outcome, str):
                    return outcome
                wait = self._wait_or_raise(outcome, attempt)
                await asyncio.sleep(wait)

    async def _attempt(self, httpx: Any, client: Any, body: bytes) -> str | ChatModelError:
        """One request: the answer's text, or the error it would end in (not raised yet)."""
        where = f"POST {self._url}"
        try:
            async with asyncio.timeout(self._timeout):
                async with client.stream(
                    "POST", self._url, content=body, headers=json_headers(self._api_key)
                ) as response:
                    status = int(response.status_code)
                    raw = await read_capped(response, self._max_response_bytes)
                    headers = response.headers
        except (TimeoutError, httpx.TimeoutException):
            return ChatTimeoutError(f"{where} gave no complete answer within {self._timeout:g} s")
        except ResponseTooLarge as error:
            return ChatModelError(
                f"{where} answered more than {error.limit} bytes; refusing an oversized "
                f"response (raise max_response_bytes if this endpoint is trusted)"
            )
        except (httpx.NetworkError, httpx.ProtocolError, httpx.ProxyError) as error:
            return TransientChatError(f"{where} failed: {type(error).__name__}")
        except httpx.HTTPError as error:
            return ChatModelError(f"{where} failed: {type(error).__name__}")
        if 200 <= status < 300:
            try:
                return message_text(raw, where=where, max_output_tokens=self._max_output_tokens)
            except ChatModelError as error:
                return error
        return self._status_error(status, raw, headers)

    def _status_error(self, status: int, raw: bytes, headers: Mapping[str, str]) -> ChatModelError:
        message = status_message(self._url, status, raw)
        if is_retryable_status(status):
            return TransientChatError(message, retry_after=retry_after_seconds(headers))
        otherwise = "the endpoint refused the request: check the model name and settings"
        return ChatModelError(refusal_message(message, status, self._model, otherwise))

    def _wait_or_raise(self, error: ChatModelError, attempt: int) -> float:
        """Seconds to wait before the next attempt, or raise ``error`` as final."""
        asked = error.retry_after if isinstance(error, TransientChatError) else None
        decision = self._retry.decide(attempt, retryable=error.transient, retry_after=asked)
        if not isinstance(decision, GiveUp):
            return decision
        advice = ""
        if decision.reason == "out_of_attempts":
            advice = " or raise max_retries"
            if isinstance(error, ChatTimeoutError):
                advice = f"; raise timeout= (now {self._timeout:g} s) or check the endpoint"
        raise type(error)(redact(f"{error}{decision.suffix}{advice}", self._api_key))

    def _body(self, messages: Sequence[ChatMessage]) -> bytes:
        given: object = messages
        if isinstance(given, str | bytes) or not isinstance(given, Sequence) or not given:
            raise ConfigurationError(
                "messages must be a nonempty list of {'role': ..., 'content': ...} mappings"
            )
        sent: list[dict[str, str]] = []
        for index, message in enumerate(messages):
            role = message.get("role") if isinstance(message, Mapping) else None
            content = message.get("content") if isinstance(message, Mapping) else None
            if role not in _ROLES or not isinstance(content, str):
                raise ConfigurationError(
                    f"messages[{index}] must be a mapping with 'role' in {sorted(_ROLES)} and "
                    f"a str 'content'"
                )
            sent.append({"role": role, "content": scrub_surrogates(content)})
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": sent,
            "temperature": self._temperature,
            self._token_limit_field: self._max_output_tokens,
            "stream": False,
        }
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def __repr__(self) -> str:
        return (
            f"OpenAIChatModel(model={self._model!r}, url={self._url!r}, "
            f"timeout={self._timeout:g}, max_output_tokens={self._max_output_tokens})"
        )
