"""``OpenAIEmbeddingClient``: any OpenAI-compatible ``/embeddings`` endpoint over ``httpx``.

The same client talks to OpenAI, Azure's v1 endpoint, vLLM, Text Embeddings Inference,
Ollama or LocalAI: ``POST {base_url}/embeddings`` with ``{"model", "input": [...],
"encoding_format": "float"}`` (plus ``dimensions`` when asked), bearer-token auth.

Failure handling is the client's, per HTTP request (one request embeds one batch):
429/408/409/5xx answers, connection failures and timeouts are retried with exponential
backoff (``Policy.delay_for``: the schedule every fastrag step uses), waiting exactly as
long as a ``Retry-After``/``retry-after-ms`` header asks when that is at most
``max_retry_after`` seconds and giving up at once when it is longer (the rule of
``_retry``, shared with the chat client). Any other answer fails immediately.
``timeout`` bounds each attempt as a whole (not only the gaps between bytes), so a
stalled server becomes an ``EmbeddingTimeoutError`` naming the endpoint.

Secrets: the key lives in a ``Secret``; it is sent only in the ``Authorization`` header
and never appears in ``identity``, ``repr``, errors or logs (messages are additionally
scrubbed of it, in case a server echoes it back). ``trust_env=False`` by default: proxy
variables, ``.netrc`` and ``SSL_CERT_FILE`` from the environment are ignored, so a key
meant for one endpoint is never routed through a proxy someone else configured.

An ``httpx.AsyncClient`` is opened per ``embed`` call and closed after it: nothing stays
open between calls and the client works from any event loop (``asyncio.run`` per file, a
Dask worker's loop). The price is a new connection per batch — small next to the model
time of a batch; a pooled client would need a step-level close hook the pipeline lacks.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from fastrag._checks import finite_number, optional_int_at_least
from fastrag._optional import require
from fastrag.exceptions import ConfigurationError
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
from fastrag.llm._vectors import check_vectors, to_vector
from fastrag.llm.errors import EmbeddingError, EmbeddingTimeoutError
from fastrag.llm.protocol import Vector
from fastrag.llm.secret import Secret, as_secret, redact
from fastrag.tokenization import TiktokenTokenizer, Tokenizer
from fastrag.tokenization._text import scrub_surrogates

__all__ = ["DEFAULT_BASE_URL", "KNOWN_MODELS", "OpenAIEmbeddingClient"]

DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"


@dataclass(frozen=True, slots=True)
class _KnownModel:
    dimension: int
    max_input_tokens: int
    encoding: str


KNOWN_MODELS: Final[Mapping[str, _KnownModel]] = {
    # OpenAI's published limits: 8191 input tokens of cl100k_base per text.
    "text-embedding-3-small": _KnownModel(1536, 8191, "cl100k_base"),
    "text-embedding-3-large": _KnownModel(3072, 8191, "cl100k_base"),
    "text-embedding-ada-002": _KnownModel(1536, 8191, "cl100k_base"),
}

_BASE_RESPONSE_BYTES: Final = 1 << 20
_BYTES_PER_VALUE: Final = 32
"""Generous JSON size of one float ("-0.0123456789012345678,"), for the response cap."""
_UNKNOWN_DIMENSION_GUESS: Final = 8192


@dataclass(frozen=True, slots=True)
class _Failure:
    """One failed attempt: what to say, whether to retry, how long the server asked."""

    message: str
    retryable: bool
    timeout: bool = False
    wait: float | None = None


class OpenAIEmbeddingClient:
    """Embed batches through an OpenAI-compatible HTTP endpoint.

    For the OpenAI models in ``KNOWN_MODELS`` the dimension, the 8191-token input limit
    and the cl100k tokenizer that measures it are known; for any other model pass
    ``tokenizer`` and ``max_input_tokens`` to have over-long texts refused before they are
    sent (otherwise the server is the judge: OpenAI refuses them with HTTP 400, other
    servers may truncate). ``dimensions`` requests shortened vectors (text-embedding-3).
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | Secret | None = None,
        base_url: str = DEFAULT_BASE_URL,
        dimensions: int | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 20.0,
        trust_env: bool = False,
        verify: bool | ssl.SSLContext = True,
        tokenizer: Tokenizer | None = None,
        max_input_tokens: int | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError(
                f"model must be the endpoint's model name such as 'text-embedding-3-small' "
                f"(got {type(model).__name__})"
            )
        self._model = model
        self._api_key = as_secret(api_key)
        self._url = endpoint_url(base_url, "/embeddings")
        self._dimensions = optional_int_at_least("dimensions", dimensions, 1)
        self._timeout = finite_number("timeout", timeout, positive=True, unit="seconds")
        self._retry = retry_rule(
            "OpenAIEmbeddingClient",
            key=self._url,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
            max_retry_after=max_retry_after,
        )
        check_transport(trust_env, verify)
        self._trust_env = trust_env
        self._verify = verify
        known = KNOWN_MODELS.get(model)
        limit = optional_int_at_least("max_input_tokens", max_input_tokens, 1)
        if limit is not None and tokenizer is None and known is None:
            raise ConfigurationError(
                f"max_input_tokens={limit} needs a tokenizer to count with; pass the "
                f"tokenizer of {model!r} as tokenizer=..."
            )
        if tokenizer is not None and not isinstance(tokenizer, Tokenizer):
            raise ConfigurationError(
                f"tokenizer must be a fastrag Tokenizer (got {type(tokenizer).__name__})"
            )
        self._tokenizer = tokenizer
        self._encoding = known.encoding if known is not None and tokenizer is None else None
        self._max_input_tokens = (
            limit if limit is not None else (known.max_input_tokens if known is not None else None)
        )
        self._dimension: int | None = self._dimensions or (
            known.dimension if known is not None else None
        )

    @property
    def model(self) -> str:
        """The model name sent to the endpoint."""
        return self._model

    @property
    def url(self) -> str:
        """The full ``/embeddings`` URL (never carries credentials)."""
        return self._url

    @property
    def identity(self) -> str:
        """``openai-compatible:<model>@<embeddings URL>[:dimensions=<n>]``; never the key."""
        suffix = f":dimensions={self._dimensions}" if self._dimensions is not None else ""
        return f"openai-compatible:{self._model}@{self._url}{suffix}"

    @property
    def dimension(self) -> int | None:
        """Known in advance for ``KNOWN_MODELS`` or ``dimensions=``; else after one answer."""
        return self._dimension

    @property
    def max_input_tokens(self) -> int | None:
        """The per-text input limit, when known."""
        return self._max_input_tokens

    @property
    def tokenizer(self) -> Tokenizer | None:
        """The counting tokenizer (cl100k_base for ``KNOWN_MODELS``), or None."""
        if self._tokenizer is None and self._encoding is not None:
            self._tokenizer = TiktokenTokenizer(self._encoding)
        return self._tokenizer

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One request for ``texts`` (retried per the settings); vectors in input order."""
        if not texts:
            return []
        httpx = require("httpx", extra="embeddings", feature="OpenAIEmbeddingClient")
        body = self._body(texts)
        headers = json_headers(self._api_key)
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(self._timeout),
            trust_env=self._trust_env,
            verify=self._verify,
            follow_redirects=False,
        ) as client:
            attempt = 0
            while True:
                attempt += 1
                outcome = await self._attempt(httpx, client, body, headers, len(texts))
                if not isinstance(outcome, _Failure):
                    return outcome
                await asyncio.sleep(self._wait_or_raise(outcome, attempt))

    def _wait_or_raise(self, failure: _Failure, attempt: int) -> float:
        """Seconds to wait before the next attempt, or raise ``failure`` as final."""
        decision = self._retry.decide(
            attempt, retryable=failure.retryable, retry_after=failure.wait
        )
        if not isinstance(decision, GiveUp):
            return decision
        message = f"{failure.message}{decision.suffix}"
        if decision.reason == "retry_after_too_long":
            message += "; slow down (smaller batch_size, fewer concurrent runs) or raise "
            message += "max_retry_after"
        elif failure.timeout:
            raise EmbeddingTimeoutError(
                redact(
                    f"{message}; raise timeout= (now {self._timeout:g} s), lower batch_size, "
                    f"or check that the endpoint is up",
                    self._api_key,
                )
            )
        elif decision.reason == "out_of_attempts":
            message += " or raise max_retries"
        raise EmbeddingError(redact(message, self._api_key))

    async def _attempt(
        self, httpx: Any, client: Any, body: bytes, headers: dict[str, str], count: int
    ) -> list[Vector] | _Failure:
        where = f"POST {self._url}"
        try:
            async with asyncio.timeout(self._timeout):
                async with client.stream("POST", self._url, content=body, headers=headers) as (
                    response
                ):
                    status = int(response.status_code)
                    raw = await read_capped(response, self._response_cap(count))
                    response_headers = response.headers
        except (TimeoutError, httpx.TimeoutException):
            return _Failure(
                f"{where} got no complete answer within {self._timeout:g} s",
                retryable=True,
                timeout=True,
            )
        except ResponseTooLarge as error:
            return _Failure(
                f"{where} answered more than {error.limit} bytes for {count} texts; refusing "
                f"an oversized response (is base_url really an embeddings endpoint?)",
                retryable=False,
            )
        except (httpx.NetworkError, httpx.ProtocolError, httpx.ProxyError) as error:
            return _Failure(f"{where} failed: {type(error).__name__}", retryable=True)
        except httpx.HTTPError as error:
            return _Failure(f"{where} failed: {type(error).__name__}", retryable=False)
        if 200 <= status < 300:
            return self._parse(raw, count)
        return self._status_failure(status, raw, response_headers)

    def _status_failure(self, status: int, raw: bytes, headers: Mapping[str, str]) -> _Failure:
        message = status_message(self._url, status, raw)
        if is_retryable_status(status):
            return _Failure(message, retryable=True, wait=retry_after_seconds(headers))
        otherwise = (
            "the endpoint refused the request: check the model name, dimensions "
            "and the input limit of the model"
        )
        return _Failure(refusal_message(message, status, self._model, otherwise), retryable=False)

    def _parse(self, raw: bytes, count: int) -> list[Vector] | _Failure:
        source = f"POST {self._url}"
        try:
            payload = json.loads(raw)
        except ValueError:
            return _Failure(f"{source} answered with a body that is not JSON", retryable=False)
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            return _Failure(
                f"{source} answered JSON without a 'data' list; is base_url an "
                f"OpenAI-compatible embeddings endpoint?",
                retryable=False,
            )
        ordered = _in_index_order(data)
        if ordered is None:
            return _Failure(
                f"{source} answered 'data' items with missing, duplicate or out-of-range "
                f"'index' values for {count} texts",
                retryable=False,
            )
        vectors = [
            to_vector(item.get("embedding"), source=source, position=position)
            for position, item in enumerate(ordered)
        ]
        dimension = check_vectors(vectors, expected=count, dimension=self._dimension, source=source)
        if self._dimension is None:
            self._dimension = dimension
        return vectors

    def _body(self, texts: Sequence[str]) -> bytes:
        payload: dict[str, Any] = {
            "model": self._model,
            "input": [scrub_surrogates(text) for text in texts],
            "encoding_format": "float",
        }
        if self._dimensions is not None:
            payload["dimensions"] = self._dimensions
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def _response_cap(self, count: int) -> int:
        dimension = self._dimension or _UNKNOWN_DIMENSION_GUESS
        return _BASE_RESPONSE_BYTES + count * dimension * _BYTES_PER_VALUE

    def __repr__(self) -> str:
        dimensions = f", dimensions={self._dimensions}" if self._dimensions is not None else ""
        return (
            f"OpenAIEmbeddingClient(model={self._model!r}, url={self._url!r}{dimensions}, "
            f"timeout={self._timeout:g})"
        )


def _in_index_order(data: list[Any]) -> list[dict[str, Any]] | None:
    """``data`` items ordered by their ``index`` (a permutation of 0..n-1), or None."""
    if not all(isinstance(item, dict) for item in data):
        return None
    indices = [item.get("index") for item in data]
    if all(index is None for index in indices):
        return list(data)  # some servers omit it and answer in order
    if any(isinstance(index, bool) or not isinstance(index, int) for index in indices):
        return None
    if sorted(indices) != list(range(len(data))):
        return None
    by_index = dict(zip(indices, data, strict=True))
    return [by_index[position] for position in range(len(data))]
