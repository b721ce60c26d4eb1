"""Both OpenAI-compatible clients refuse transport options httpx would misread."""

from __future__ import annotations

from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.llm.chat import OpenAIChatModel
from fastrag.llm.openai_embeddings import OpenAIEmbeddingClient


@pytest.mark.parametrize("client", [OpenAIChatModel, OpenAIEmbeddingClient])
@pytest.mark.parametrize(
    ("option", "match"),
    [
        ({"trust_env": "no"}, "trust_env must be True or False"),
        ({"verify": "/etc/ssl/cert.pem"}, "verify must be True, False or an ssl.SSLContext"),
    ],
)
def test_bad_transport_options_are_refused_by_name(
    client: Any, option: dict[str, Any], match: str
) -> None:
    with pytest.raises(ConfigurationError, match=match):
        client("some-model", api_key="sk-x", **option)
