"""``OpenAIEmbedder``: embed through any OpenAI-compatible ``/embeddings`` endpoint."""

from __future__ import annotations

import ssl

from fastrag.ingestion.steps.embedding.base import Embedder
from fastrag.llm import DEFAULT_BASE_URL, OpenAIEmbeddingClient, Secret
from fastrag.pipeline import CacheSetting, Policy
from fastrag.tokenization import Tokenizer

__all__ = ["OpenAIEmbedder"]


class OpenAIEmbedder(Embedder):
    """Embed with an OpenAI-compatible HTTP endpoint (OpenAI, vLLM, TEI, Ollama, …).

    The key is sent only as a bearer token: it is not part of ``identity``, ``config()``,
    cache keys, ``repr``, errors or logs. HTTP-level failures (429, 5xx, timeouts,
    connection errors) are retried by the client with backoff, honoring ``Retry-After``;
    ``policy`` governs the step's per-chunk handling on top (``retries`` re-embeds a
    failed chunk alone). ``trust_env=False`` ignores proxy settings from the environment.
    The default ``batch_size`` keeps a request of 8191-token texts under OpenAI's
    per-request token limit.
    """

    def __init__(
        self,
        model: str,
        api_key: str | Secret | None = None,
        base_url: str = DEFAULT_BASE_URL,
        dimensions: int | None = None,
        timeout: float = 30.0,
        batch_size: int = 32,
        *,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_retry_after: float = 20.0,
        trust_env: bool = False,
        verify: bool | ssl.SSLContext = True,
        tokenizer: Tokenizer | None = None,
        max_input_tokens: int | None = None,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        client = OpenAIEmbeddingClient(
            model,
            api_key=api_key,
            base_url=base_url,
            dimensions=dimensions,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_retry_after=max_retry_after,
            trust_env=trust_env,
            verify=verify,
            tokenizer=tokenizer,
            max_input_tokens=max_input_tokens,
        )
        super().__init__(client, batch_size=batch_size, cache=cache, policy=policy)
